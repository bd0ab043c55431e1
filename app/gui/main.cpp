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
    parser.process(app);

    ui::MainWindow window;
    window.show();
    for (const QString& path : parser.positionalArguments())
        window.openPath(path);
    return app.exec();
}
