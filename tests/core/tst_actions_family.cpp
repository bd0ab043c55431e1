// The key family rule (core/actions-cache/KeyFamily.h) on keys as
// workflows write them: actions/cache's hashFiles suffixes, setup-* keys,
// BuildKit's gha cache (`buildkit-blob-1-sha256:<64 hex>`), keys with no
// hash, keys that are only hex, and the near misses.
#include "core/actions-cache/KeyFamily.h"

#include <QTest>

using cs::actions::keyFamily;

namespace {
const std::string kSha = "3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed";
}

class TestActionsFamily : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void family_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("family");
        auto row = [](const char* name, const std::string& key, const std::string& family) {
            QTest::newRow(name) << QString::fromStdString(key) << QString::fromStdString(family);
        };
        row("hashFiles node", "Linux-node-" + kSha, "Linux-node");
        row("setup-node npm", "node-cache-Linux-x64-npm-" + kSha, "node-cache-Linux-x64-npm");
        row("setup-python pip", "setup-python-Linux-22.04-Ubuntu-python-3.12.0-pip-" + kSha,
            "setup-python-Linux-22.04-Ubuntu-python-3.12.0-pip");
        row("cargo underscore", "v0-rust-test_linux_" + kSha.substr(0, 16), "v0-rust-test_linux");
        row("buildkit blob", "buildkit-blob-1-sha256:" + kSha, "buildkit-blob-1-sha256");
        row("buildkit index", "index-buildkit-1-sha256:" + kSha, "index-buildkit-1-sha256");
        row("upper-case hex", "Windows-gradle-" + std::string("ABCDEF0123456789"), "Windows-gradle");
        row("two hashes: one run goes", "Linux-gradle-" + kSha + "-" + kSha, "Linux-gradle-" + kSha);
        row("exactly 8 hex", "ccache-linux-deadbeef", "ccache-linux");
        row("7 hex is no hash", "ccache-linux-deadbee", "ccache-linux-deadbee");
        row("no hash", "linux-cargo-merged", "linux-cargo-merged");
        row("numbers as a run", "build-20261202", "build");
        row("only hex", kSha, "");
        row("only 8 hex", "cafebabe", "");
        row("short hex only", "cafe", "cafe");
        row("hex glued to a word", "nodemodules0123456789abcdef", "nodemodules0123456789abcdef");
        row("empty", "", "");
        row("trailing separator", "Linux-node-" + kSha + "-", "Linux-node-" + kSha + "-");
        row("separator only before hex", "-" + kSha, "");
        row("dots", "go-mod-1.21." + kSha, "go-mod-1.21");
    }

    void family()
    {
        QFETCH(QString, key);
        QFETCH(QString, family);
        QCOMPARE(QString::fromStdString(keyFamily(key.toStdString())), family);
    }
};

QTEST_APPLESS_MAIN(TestActionsFamily)
#include "tst_actions_family.moc"
