// File > Open Cache Server… against real servers started here (PostgreSQL 15
// and s3rver, common/TestServers.h), holding the fixture data dir (every
// state) loaded by independent writers (common/RemoteDeployment.h): the
// dialog opens the deployment off the GUI thread with secrets typed in (the
// environment has none), the document shows the same rows, states, sizes,
// parts and verify findings as the same data dir opened locally; no row and
// no object changes; no secret reaches the settings, the title, a label or an
// error; a wrong key or database says so in one sentence; Cancel stops an
// open that gets no answer.
//
// CACHESCOPE_SCREENSHOT_DIR=dir also saves the dialog and the document as
// PNGs (run under Xvfb with QT_QPA_PLATFORM=xcb for docs/screenshots/).
#include "JobSpy.h"
#include "common/ActionsCacheFixture.h"
#include "common/RemoteDeployment.h"
#include "common/TestServers.h"
#include "common/TestSupport.h"

#include "core/actions-cache/ActionsCache.h"
#include "core/jobs/Job.h"
#include "ui/actions/ActionsBrowser.h"
#include "ui/actions/ActionsDocument.h"
#include "ui/actions/ActionsEntryModel.h"
#include "ui/actions/ActionsFindingModel.h"
#include "ui/actions/ActionsPartsModel.h"
#include "ui/actions/ActionsUploadModel.h"
#include "ui/actions/CacheServerDialog.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/RecentFiles.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTimer>

#include <map>
#include <set>

using testsupport::ActionsCacheFixture;
using ui::ActionsDocument;
using ui::ActionsEntryModel;
using ui::CacheServerDialog;

namespace {

const char* const kPgSecret = "pg-typed-secret-7f3a";
const char* const kS3Secret = "s3-typed-secret-91c2";
const char* const kToken = "session-token-secret-5d8e";

bool containsSecret(const QString& text)
{
    return text.contains(QLatin1String(kPgSecret)) || text.contains(QLatin1String(kS3Secret))
           || text.contains(QLatin1String(kToken));
}

QAction* findAction(QMenuBar* bar, const QString& text)
{
    for (QAction* menu : bar->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text() == text)
                    return a;
    return nullptr;
}

void saveShot(QWidget* w, const QString& name)
{
    const QString dir = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QTest::qWait(300);
    w->grab().save(dir + QLatin1Char('/') + name);
}

} // namespace

class TestActionsServer : public QObject {
    Q_OBJECT

    testsupport::PgTestServer pg_;
    testsupport::S3TestServer s3server_;
    QTemporaryDir dir_;
    std::unique_ptr<ActionsCacheFixture> fixture_;
    int counter_ = 0;

    struct Deployment {
        QString name, url, storage;
        std::string conninfo;
    };

    Deployment deploy()
    {
        Deployment d;
        d.name = QStringLiteral("g%1").arg(++counter_);
        auto admin = cs::remote::PgConnection::connect(pg_.conninfo().toStdString());
        admin->exec("CREATE DATABASE " + d.name.toStdString());
        d.conninfo = pg_.conninfo(d.name).toStdString();
        d.url = pg_.url(d.name);
        auto c = cs::remote::PgConnection::connect(d.conninfo);
        testsupport::loadRows(fixture_->dbPath(), *c);
        const std::string prefix = d.name.toStdString() + "/gh-actions-cache";
        d.storage = QStringLiteral("s3://cache/") + QString::fromStdString(prefix);
        cs::remote::S3Client s3(loaderConfig());
        testsupport::uploadStorage(s3, prefix, fixture_->storageDir());
        return d;
    }

    cs::remote::S3Config loaderConfig() const
    {
        cs::remote::S3Config c;
        c.endpoint = s3server_.endpoint().toStdString();
        c.bucket = "cache";
        c.accessKeyId = testsupport::S3TestServer::accessKeyId().toStdString();
        c.secretAccessKey = testsupport::S3TestServer::secretAccessKey().toStdString();
        return c;
    }

    // Fills the dialog as a user would: the secrets typed in.
    void fill(CacheServerDialog* d, const Deployment& dep, const QString& keyId = QStringLiteral("S3RVER"))
    {
        d->databaseEdit()->setText(dep.url);
        d->databasePasswordEdit()->setText(QLatin1String(kPgSecret));
        d->storageEdit()->setText(dep.storage);
        d->endpointEdit()->setText(s3server_.endpoint());
        d->regionEdit()->setText(QStringLiteral("eu-central-1"));
        d->accessKeyIdEdit()->setText(keyId);
        d->secretKeyEdit()->setText(QLatin1String(kS3Secret));
        d->sessionTokenEdit()->setText(QLatin1String(kToken));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("cachescope-test-actions-server"));
        QSettings().clear();
        // Nothing from the environment: what the dialog opens with is what was typed.
        for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL",
                              "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "PGPASSWORD"})
            qunsetenv(v);
        QString why;
        QVERIFY2(pg_.start(&why), qPrintable("cannot start the PostgreSQL test server: " + why));
        QVERIFY2(s3server_.start({"cache"}, &why), qPrintable("cannot start the S3 test server: " + why));
        QVERIFY(dir_.isValid());
        fixture_ = std::make_unique<ActionsCacheFixture>(dir_.path());
    }

    void cleanupTestCase() { QSettings().clear(); }

    void opensDeploymentFromTheMenuLikeTheDataDir()
    {
        const Deployment dep = deploy();
        auto pg = cs::remote::PgConnection::connect(dep.conninfo);
        cs::remote::S3Client s3(loaderConfig());
        const std::string rowsBefore = testsupport::dumpServerRows(*pg);
        const std::string objectsBefore = testsupport::listBucket(s3);

        ui::MainWindow w;
        w.resize(1400, 900);
        if (!qEnvironmentVariableIsEmpty("CACHESCOPE_SCREENSHOT_DIR"))
            w.show();
        const QStringList recentBefore = w.recentFiles()->paths();
        QAction* open = findAction(w.menuBar(), QStringLiteral("Open Cache Ser&ver…"));
        QVERIFY(open);
        bool filled = false;
        QString failure;
        // The dialog is modal: fill it and press Open from inside its loop.
        QTimer::singleShot(0, this, [&] {
            auto* d = qobject_cast<CacheServerDialog*>(QApplication::activeModalWidget());
            if (!d) {
                failure = QStringLiteral("no modal Open Cache Server dialog");
                return;
            }
            fill(d, dep);
            filled = true;
            saveShot(d, QStringLiteral("cache-server-dialog.png"));
            d->startOpening();
            if (!d->isOpening())
                failure = d->errorLabel()->text();
        });
        open->trigger();
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QVERIFY(filled);
        auto* doc = qobject_cast<ActionsDocument*>(w.currentDocument());
        QVERIFY2(doc, "the dialog was accepted but no cache-server document opened");
        QVERIFY(QTest::qWaitFor([doc] { return doc->isLoaded() && !doc->isReading() && !doc->browser()->isLoadingParts(); },
                                30000));

        // The same rows as the data dir, through the same views.
        ActionsEntryModel* m = doc->browser()->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m->rowCount(), fixture_->entries().size());
        for (const auto& e : fixture_->entries()) {
            int r = -1;
            for (int i = 0; i < m->rowCount(); ++i)
                if (m->index(i, ActionsEntryModel::Key).data().toString() == e.key)
                    r = i;
            QVERIFY2(r >= 0, qPrintable(e.key));
            QCOMPARE(m->index(r, ActionsEntryModel::State).data().toString(), e.state);
            QCOMPARE(m->index(r, ActionsEntryModel::Size).data(ActionsEntryModel::SortRole).toLongLong(), e.size);
            QCOMPARE(m->index(r, ActionsEntryModel::Parts).data().toInt(), e.partCount);
        }
        QVERIFY2(doc->summaryText().contains(QStringLiteral("5 entries")), qPrintable(doc->summaryText()));
        QCOMPARE(doc->uploadModel()->rowCount(), 1);
        // The parts pane of the unmerged entry with 12 parts (read by ranged listing of its folder).
        const int unmerged = m->rowOfId(fixture_->entry(QStringLiteral("1003")).id);
        QVERIFY(unmerged >= 0);
        doc->browser()->selectSourceRow(unmerged);
        QVERIFY(QTest::qWaitFor([doc] { return !doc->browser()->isLoadingParts(); }, 20000));
        QCOMPARE(doc->browser()->partsModel()->rowCount(), 12);
        saveShot(&w, QStringLiteral("cache-server.png"));

        // Verify finds what the data dir's verify finds.
        QSignalSpy finished(doc, &ActionsDocument::actionFinished);
        doc->verify();
        QVERIFY(finished.wait(30000));
        QVERIFY2(outcomeAt(finished, 0).ok(), qPrintable(outcomeAt(finished, 0).message));
        cs::Job job;
        auto local = cs::actions::ActionsCache::open(cs::actions::resolveDataDir(fixture_->dataDir().toStdString()));
        std::multiset<QString> want, got;
        for (const auto& f : local->verify(job))
            want.insert(QString::fromLatin1(cs::actions::findingKindName(f.kind)));
        ui::ActionsFindingModel* fm = doc->findingModel();
        for (int r = 0; r < fm->rowCount(); ++r)
            got.insert(fm->index(r, ui::ActionsFindingModel::Kind).data().toString());
        QCOMPARE(got, want);

        // Nothing was written to either server.
        QCOMPARE(testsupport::dumpServerRows(*pg), rowsBefore);
        QCOMPARE(testsupport::listBucket(s3), objectsBefore);

        // No secret anywhere the user or a file could see it; no recent-files entry.
        QStringList shown{doc->title(), doc->summaryText(), w.windowTitle(), w.tabs()->tabText(w.tabs()->currentIndex()),
                          w.tabs()->tabToolTip(w.tabs()->currentIndex())};
        for (QLabel* l : doc->findChildren<QLabel*>())
            shown << l->text();
        for (const QString& s : shown)
            QVERIFY2(!containsSecret(s), qPrintable(s));
        QVERIFY2(doc->title().startsWith(QStringLiteral("postgres@localhost:")), qPrintable(doc->title()));
        QVERIFY2(doc->title().contains(dep.storage), qPrintable(doc->title()));
        QCOMPARE(w.recentFiles()->paths(), recentBefore);
        QSettings settings;
        settings.sync();
        QFile file(settings.fileName());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString stored = QString::fromUtf8(file.readAll());
        QVERIFY2(!containsSecret(stored), qPrintable(stored));
        QVERIFY2(!stored.contains(QStringLiteral("S3RVER")), "the access key id was stored");
        // What is kept: the URL (no password), the bucket, endpoint, region.
        QCOMPARE(settings.value(CacheServerDialog::settingsKeys().at(0)).toString(), dep.url);
        QCOMPARE(settings.value(CacheServerDialog::settingsKeys().at(1)).toString(), dep.storage);
        CacheServerDialog again;
        QCOMPARE(again.storageEdit()->text(), dep.storage);
        QCOMPARE(again.regionEdit()->text(), QStringLiteral("eu-central-1"));
        QVERIFY(again.secretKeyEdit()->text().isEmpty());
        QVERIFY(again.databasePasswordEdit()->text().isEmpty());
        QVERIFY(again.accessKeyIdEdit()->text().isEmpty());
    }

    void aPasswordInTheUrlIsNeverStored()
    {
        CacheServerDialog d;
        const Deployment dep = deploy();
        // trust authentication ignores the password; it must still go nowhere.
        QString url = dep.url;
        url.replace(QStringLiteral("postgres@"), QStringLiteral("postgres:%1@").arg(QLatin1String(kPgSecret)));
        fill(&d, dep);
        d.databaseEdit()->setText(url);
        QSignalSpy accepted(&d, &QDialog::accepted);
        d.startOpening();
        QVERIFY(accepted.wait(30000));
        const QString stored = QSettings().value(CacheServerDialog::settingsKeys().at(0)).toString();
        QCOMPARE(stored, dep.url);
        auto* doc = ActionsDocument::openServer(d.location());
        QVERIFY(!containsSecret(doc->title()));
        for (QLabel* l : doc->findChildren<QLabel*>())
            QVERIFY2(!containsSecret(l->text()), qPrintable(l->text()));
        QVERIFY(QTest::qWaitFor([doc] { return doc->isLoaded() && !doc->isReading(); }, 30000));
        delete doc;
    }

    void wrongKeyOrDatabaseSaysSoWithoutSecrets()
    {
        const Deployment dep = deploy();
        {
            CacheServerDialog d;
            fill(&d, dep, QStringLiteral("NOTAKEY"));
            QSignalSpy done(d.runner(), &ui::JobRunner::finished);
            d.startOpening();
            QVERIFY(done.wait(30000));
            QVERIFY(d.result() != QDialog::Accepted);
            const QString error = d.errorLabel()->text();
            QVERIFY2(error.contains(QStringLiteral("s3://cache")), qPrintable(error));
            QVERIFY2(!containsSecret(error), qPrintable(error));
            QVERIFY(d.databaseEdit()->isEnabled());   // back to the form
        }
        {
            CacheServerDialog d;
            fill(&d, dep);
            d.databaseEdit()->setText(pg_.url(QStringLiteral("no_such_database")));
            QSignalSpy done(d.runner(), &ui::JobRunner::finished);
            d.startOpening();
            QVERIFY(done.wait(30000));
            const QString error = d.errorLabel()->text();
            QVERIFY2(error.contains(QStringLiteral("no_such_database")), qPrintable(error));
            QVERIFY2(!containsSecret(error), qPrintable(error));
        }
        {
            // Only half of a key pair typed: refused before anything is sent.
            CacheServerDialog d;
            fill(&d, dep);
            d.secretKeyEdit()->clear();
            d.startOpening();
            QVERIFY(!d.isOpening());
            QVERIFY(d.errorLabel()->text().contains(QStringLiteral("access key ID")));
        }
    }

    void cancelStopsAnOpenThatGetsNoAnswer()
    {
        // A server that accepts connections and never answers.
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        const Deployment dep = deploy();
        CacheServerDialog d;
        fill(&d, dep);
        d.endpointEdit()->setText(QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort()));
        QSignalSpy done(d.runner(), &ui::JobRunner::finished);
        d.startOpening();
        QVERIFY(d.isOpening());
        QVERIFY(QTest::qWaitFor([&] { return d.progress()->isVisible() || d.progress()->isVisibleTo(&d); }, 5000));
        QTest::qWait(1500);   // the database answered; the bucket check is waiting
        QVERIFY(d.isOpening());
        QElapsedTimer t;
        t.start();
        d.progress()->cancelButton()->click();
        QVERIFY(done.wait(15000));
        QVERIFY(outcomeAt(done, 0).cancelled());
        QVERIFY(d.result() != QDialog::Accepted);
        QVERIFY(d.databaseEdit()->isEnabled());
        QVERIFY(d.errorLabel()->isHidden());
        d.runner()->waitForAll();   // the worker itself has stopped, not just been abandoned
        qInfo("cancel took %lld ms", t.elapsed());
    }
};

QTEST_MAIN(TestActionsServer)
#include "tst_actions_server.moc"
