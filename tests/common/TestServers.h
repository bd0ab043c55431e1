// Real servers for the tests of remote backends, started on this machine by
// the test itself and stopped when the object goes: PostgreSQL (Debian's
// postgresql-15: initdb + pg_ctl in a temp folder, unix socket only) and an
// S3-compatible server (s3rver from npm, which scripts/quickstart.sh installs
// into ~/.cache/cachescope/npm). A server that cannot start is a test
// failure with the reason (start() returns false and sets why), never a skip.
#pragma once
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

#include <unistd.h>

namespace testsupport {

class PgTestServer {
public:
    ~PgTestServer() { stop(); }

    bool start(QString* why)
    {
        QString bin;
        for (const QString& v : QDir("/usr/lib/postgresql").entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed))
            if (QFileInfo::exists("/usr/lib/postgresql/" + v + "/bin/initdb")) {
                bin = "/usr/lib/postgresql/" + v + "/bin/";
                break;
            }
        if (bin.isEmpty())
            return failed(why, "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql; "
                               "install postgresql-15 (bash scripts/quickstart.sh test does)");
        dir_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + "/cs-pg-XXXXXX");
        if (!dir_->isValid())
            return failed(why, "cannot create a temp folder for PostgreSQL");
        data_ = dir_->path();
        // initdb refuses to run as root: run the server as nobody, in a folder it owns.
        if (::geteuid() == 0) {
            asUser_ = {"runuser", "-u", "nobody", "--"};
            if (QProcess::execute("chown", {"-R", "nobody", data_}) != 0)
                return failed(why, "cannot chown " + data_ + " to nobody");
        }
        port_ = 20000 + int(::getpid() % 20000);
        const QString pgdata = data_ + "/db";
        if (!runAs(bin + "initdb", {"-D", pgdata, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"}, why))
            return false;
        const QString opts = QString("-k %1 -p %2 -c listen_addresses='' -c fsync=off -c full_page_writes=off")
                                 .arg(data_)
                                 .arg(port_);
        if (!runAs(bin + "pg_ctl", {"-D", pgdata, "-l", data_ + "/log", "-o", opts, "-w", "-t", "60", "start"}, why))
            return false;
        pgCtl_ = bin + "pg_ctl";
        pgdata_ = pgdata;
        return true;
    }

    // libpq connection string for a database of this server.
    QString conninfo(const QString& db = "postgres") const
    {
        return QString("host=%1 port=%2 user=postgres dbname=%3").arg(data_).arg(port_).arg(db);
    }
    QString url(const QString& db = "postgres") const
    {
        return QString("postgres://postgres@localhost:%1/%2?host=%3").arg(port_).arg(db).arg(data_);
    }

    void stop()
    {
        if (!pgCtl_.isEmpty()) {
            QString ignored;
            runAs(pgCtl_, {"-D", pgdata_, "-m", "immediate", "-w", "stop"}, &ignored);
            pgCtl_.clear();
        }
    }

private:
    bool failed(QString* why, const QString& text)
    {
        *why = text;
        return false;
    }
    bool runAs(const QString& program, const QStringList& args, QString* why)
    {
        QProcess p;
        QStringList all = asUser_;
        all << program << args;
        const QString first = all.takeFirst();
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(first, all);
        if (!p.waitForStarted(30000) || !p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0) {
            QString log;
            QFile f(data_ + "/log");
            if (f.open(QIODevice::ReadOnly))
                log = QString::fromUtf8(f.readAll().right(2000));
            return failed(why, program + " failed: " + QString::fromUtf8(p.readAll()).trimmed() + " " + log);
        }
        return true;
    }

    std::unique_ptr<QTemporaryDir> dir_;
    QString data_, pgdata_, pgCtl_;
    QStringList asUser_;
    int port_ = 0;
};

class S3TestServer {
public:
    ~S3TestServer() { stop(); }

    // Starts s3rver on a free localhost port with the given buckets.
    bool start(const QStringList& buckets, QString* why)
    {
        const QString program = QStringLiteral(S3RVER_PROGRAM);
        if (program.isEmpty() || !QFileInfo(program).isExecutable())
            return failed(why, "s3rver not found (looked in ~/.cache/cachescope/npm/node_modules/.bin when "
                               "configuring); bash scripts/quickstart.sh test installs it from npm");
        dir_ = std::make_unique<QTemporaryDir>();
        QTcpServer probe;
        if (!probe.listen(QHostAddress::LocalHost, 0))
            return failed(why, "no free localhost port for s3rver");
        port_ = probe.serverPort();
        probe.close();
        QStringList args{"-d", dir_->path(), "-a", "127.0.0.1", "-p", QString::number(port_), "-s"};
        for (const auto& b : buckets)
            args << "--configure-bucket" << b;
        process_.setProcessChannelMode(QProcess::MergedChannels);
        // s3rver's continuation tokens use DES, which Node 17+ (OpenSSL 3)
        // only has in its legacy provider.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NODE_OPTIONS", "--openssl-legacy-provider");
        process_.setProcessEnvironment(env);
        process_.start(program, args);
        if (!process_.waitForStarted(30000))
            return failed(why, "cannot start " + program + ": " + process_.errorString());
        for (int i = 0; i < 300; ++i) {
            QTcpSocket s;
            s.connectToHost(QHostAddress::LocalHost, quint16(port_));
            if (s.waitForConnected(100))
                return true;
            if (process_.state() == QProcess::NotRunning)
                return failed(why, "s3rver exited: " + QString::fromUtf8(process_.readAll()).trimmed());
            QThread::msleep(100);
        }
        return failed(why, "s3rver did not listen on port " + QString::number(port_) + " within 30 s");
    }

    QString endpoint() const { return QString("http://127.0.0.1:%1").arg(port_); }
    // s3rver's built-in account (it checks the key id, not the signature).
    static QString accessKeyId() { return "S3RVER"; }
    static QString secretAccessKey() { return "S3RVER"; }

    void stop()
    {
        if (process_.state() != QProcess::NotRunning) {
            process_.kill();
            process_.waitForFinished(10000);
        }
    }

private:
    bool failed(QString* why, const QString& text)
    {
        *why = text;
        stop();
        return false;
    }
    std::unique_ptr<QTemporaryDir> dir_;
    QProcess process_;
    int port_ = 0;
};

} // namespace testsupport
