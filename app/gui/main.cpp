#include "ui/actions/ReportChart.h"
#include "ui/bench/BootProfiler.h"
#include "ui/bench/SamplesChart.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv)
{
    // Drawing a chart for cachescope-cli needs no screen.
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--render-samples") == 0 || std::strcmp(argv[i], "--render-run") == 0
            || std::strcmp(argv[i], "--render-report") == 0)
            qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("cachescope"));
    QApplication::setOrganizationName(QStringLiteral("cachescope"));
    QApplication::setApplicationVersion(QStringLiteral(CACHESCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Inspect build-cache stores and zstd snapshots."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Stores, cache-server data dirs (with sqlite.db and storage/) or zstd files to open."), QStringLiteral("[files...]"));
    const QCommandLineOption profileBoot(QStringLiteral("profile-boot"),
        QStringLiteral("Write a boot profile (first paint, idle RSS, longest stall) as JSON to FILE, then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption profileIdle(QStringLiteral("profile-idle"),
        QStringLiteral("Seconds to idle before the profile's RSS is read (default 10)."), QStringLiteral("SECONDS"),
        QStringLiteral("10"));
    const QCommandLineOption renderSamples(QStringLiteral("render-samples"),
        QStringLiteral("Draw benchmark samples (CSV t,series,value) to the --output file, then quit."), QStringLiteral("CSV"));
    const QCommandLineOption renderRun(QStringLiteral("render-run"),
        QStringLiteral("Draw the summary chart of a benchmark run (JSON with samples, as cachescope-cli bench writes it) to the --output file, then quit."),
        QStringLiteral("JSON"));
    const QCommandLineOption renderReport(QStringLiteral("render-report"),
        QStringLiteral("Draw a cache-server report (JSON, as cachescope-cli actions-cache report --json writes it) to the --output file, then quit."),
        QStringLiteral("JSON"));
    const QCommandLineOption output(QStringLiteral("output"), QStringLiteral("Chart file (.png, .pdf, .svg)."), QStringLiteral("FILE"));
    parser.addOption(renderSamples);
    parser.addOption(renderRun);
    parser.addOption(renderReport);
    parser.addOption(output);
    parser.addOption(profileBoot);
    parser.addOption(profileIdle);
    // Bad usage exits 2, as cachescope-cli does (process() would exit 1).
    if (!parser.parse(QApplication::arguments())) {
        std::fprintf(stderr, "cachescope: %s\nTry 'cachescope --help'.\n", qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("cachescope %s\n", CACHESCOPE_VERSION);
        return 0;
    }
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);

    if (parser.isSet(renderSamples) || parser.isSet(renderRun) || parser.isSet(renderReport)) {
        QString error;
        const bool ok = parser.isSet(renderReport) ? ui::renderServerReport(parser.value(renderReport), parser.value(output), &error)
                        : parser.isSet(renderRun)
                            ? ui::renderRunChart(parser.value(renderRun), parser.value(output), &error)
                            : ui::renderSamplesChart(parser.value(renderSamples), parser.value(output), &error);
        if (!ok) {
            std::fprintf(stderr, "%s\n", error.toLocal8Bit().constData());
            return 1;
        }
        return 0;
    }

    ui::MainWindow window;
    if (parser.isSet(profileBoot))
        new ui::BootProfiler(&window, parser.value(profileBoot), parser.value(profileIdle).toDouble(), &app);
    window.show();
    // Documents get their tabs after the first paint, and each is read when
    // its tab is first shown: the window appears at once, and many files
    // named here cost little until they are looked at.
    const QStringList paths = parser.positionalArguments();
    if (!paths.isEmpty())
        QTimer::singleShot(0, &window, [&window, paths] { window.openPathsLazily(paths); });
    return app.exec();
}
