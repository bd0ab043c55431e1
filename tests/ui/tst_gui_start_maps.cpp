// The GUI at start links and maps none of the remote backends' libraries
// (libpq, libmariadb, libcurl: they are modules loaded when a location names
// one, core/actions-cache/RemoteModule.h): ldd of the program, and
// /proc/PID/maps when it exits after its boot profile (first paint, then
// idle), read at the exit event (common/ExitMaps.h).
#include "common/ExitMaps.h"
#include "common/TestSupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

class TestGuiStartMaps : public QObject {
    Q_OBJECT

private slots:
    void theGuiLinksNoRemoteLibrary()
    {
        const std::string out = testsupport::ldd(QStringLiteral(CACHESCOPE_GUI));
        QVERIFY2(out.find("libQt6Widgets") != std::string::npos, out.c_str());   // ldd did list it
        const QStringList found = testsupport::remoteLibrariesIn(out);
        QVERIFY2(found.isEmpty(), qPrintable("cachescope links " + found.join(", ")));
    }

    void theGuiAtStartMapsNoRemoteLibrary()
    {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString profile = home.path() + "/boot.json";
        // A fresh home: no saved session that could reopen a server.
        const auto r = testsupport::runToExitMaps(
            {QStringLiteral(CACHESCOPE_GUI), "--profile-boot", profile, "--profile-idle", "0.3"},
            {"QT_QPA_PLATFORM=offscreen", "HOME=" + home.path(), "XDG_CONFIG_HOME=" + home.path() + "/config",
             "XDG_DATA_HOME=" + home.path() + "/data", "XDG_CACHE_HOME=" + home.path() + "/cache"});
        QVERIFY2(r.why.empty(), r.why.c_str());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile f(profile);
        QVERIFY2(f.open(QIODevice::ReadOnly), "no boot profile: the GUI did not paint");
        QVERIFY(QJsonDocument::fromJson(f.readAll()).isObject());
        QVERIFY2(r.maps.find("libQt6Widgets") != std::string::npos, "the maps are not the GUI's");
        const QStringList found = testsupport::remoteLibrariesIn(r.maps);
        QVERIFY2(found.isEmpty(), qPrintable("the GUI at start maps " + found.join(", ")));
        for (const char* module : {"/cachescope-postgres.so", "/cachescope-mysql.so", "/cachescope-s3.so"})
            QVERIFY2(r.maps.find(module) == std::string::npos, module);
    }
};

QTEST_GUILESS_MAIN(TestGuiStartMaps)
#include "tst_gui_start_maps.moc"
