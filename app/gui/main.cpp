#include "ui/bench/BootProfiler.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("cachescope"));
    QApplication::setOrganizationName(QStringLiteral("cachescope"));
    QApplication::setApplicationVersion(QStringLiteral(CACHESCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Inspect build-cache stores and zstd snapshots."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Stores or zstd files to open."), QStringLiteral("[files...]"));
    const QCommandLineOption profileBoot(QStringLiteral("profile-boot"),
        QStringLiteral("Write a boot profile (first paint, idle RSS, longest stall) as JSON to FILE, then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption profileIdle(QStringLiteral("profile-idle"),
        QStringLiteral("Seconds to idle before the profile's RSS is read (default 10)."), QStringLiteral("SECONDS"),
        QStringLiteral("10"));
    parser.addOption(profileBoot);
    parser.addOption(profileIdle);
    parser.process(app);

    ui::MainWindow window;
    if (parser.isSet(profileBoot))
        new ui::BootProfiler(&window, parser.value(profileBoot), parser.value(profileIdle).toDouble(), &app);
    window.show();
    for (const QString& path : parser.positionalArguments())
        window.openPath(path);
    return app.exec();
}
