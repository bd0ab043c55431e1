// Real servers for the tests of remote backends, started on this machine by
// the test itself and stopped when the object goes: PostgreSQL (Debian's
// postgresql-15: initdb + pg_ctl in a temp folder, unix socket only),
// MariaDB (Debian's mariadb-server: mariadb-install-db + mariadbd in a temp
// folder, a free localhost port and a unix socket) and an S3-compatible
// server (s3rver from npm, which scripts/quickstart.sh installs into
// ~/.cache/cachescope/npm). A server that cannot start is a test
// failure with the reason (start() returns false and sets why), never a skip.
#pragma once
#include <QDir>
#include <QFile>
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

// MariaDB from Debian's mariadb-server, nothing of the system's own (no
// option files, no running server): a data dir made by mariadb-install-db
// in a temp folder, mariadbd on a free 127.0.0.1 port and a socket in that
// folder, utf8mb4 as Debian's packaged configuration sets it, and
// performance_schema on (MySQL's default; it shows connection attributes).
// root (socket, no password) sets up; the code under test connects as
// user() with password(), which only MYSQL_PWD or a typed-in field carries.
class MariaDbTestServer {
public:
    ~MariaDbTestServer() { stop(); }

    // Unsets MYSQL_PWD in this process: root's sessions have no password,
    // and MysqlConnection::connect would send an exported one for them.
    bool start(QString* why)
    {
        qunsetenv("MYSQL_PWD");
        const QString server = findProgram({"/usr/sbin/mariadbd", "/usr/sbin/mysqld"});
        install_ = findProgram({"/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"});
        client_ = findProgram({"/usr/bin/mariadb", "/usr/bin/mysql"});
        dump_ = findProgram({"/usr/bin/mariadb-dump", "/usr/bin/mysqldump"});
        admin_ = findProgram({"/usr/bin/mariadb-admin", "/usr/bin/mysqladmin"});
        if (server.isEmpty() || install_.isEmpty() || client_.isEmpty() || dump_.isEmpty() || admin_.isEmpty())
            return failed(why, "MariaDB server programs (mariadbd, mariadb-install-db, mariadb, mariadb-dump, "
                               "mariadb-admin) not found under /usr/sbin and /usr/bin; install mariadb-server "
                               "(bash scripts/quickstart.sh test does)");
        dir_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + "/cs-my-XXXXXX");
        if (!dir_->isValid())
            return failed(why, "cannot create a temp folder for MariaDB");
        // mariadbd refuses to run as root unless told to.
        QStringList asUser;
        if (::geteuid() == 0)
            asUser << "--user=root";
        const QString data = dir_->path() + "/data";
        QProcess install;
        install.setProcessChannelMode(QProcess::MergedChannels);
        install.start(install_, QStringList{"--no-defaults"} + asUser
                                    + QStringList{"--datadir=" + data, "--auth-root-authentication-method=normal",
                                                  "--skip-test-db", "--skip-name-resolve"});
        if (!install.waitForFinished(180000) || install.exitStatus() != QProcess::NormalExit || install.exitCode() != 0)
            return failed(why, install_ + " failed: " + QString::fromUtf8(install.readAll().right(2000)).trimmed());
        QTcpServer probe;
        if (!probe.listen(QHostAddress::LocalHost, 0))
            return failed(why, "no free localhost port for MariaDB");
        port_ = probe.serverPort();
        probe.close();
        socket_ = dir_->path() + "/sock";
        process_.setProcessChannelMode(QProcess::MergedChannels);
        process_.start(server, QStringList{"--no-defaults"} + asUser
                                   + QStringList{"--datadir=" + data, "--socket=" + socket_,
                                                 "--port=" + QString::number(port_), "--bind-address=127.0.0.1",
                                                 "--pid-file=" + dir_->path() + "/pid", "--log-error=" + log(),
                                                 "--skip-name-resolve", "--skip-log-bin",
                                                 "--character-set-server=utf8mb4",
                                                 "--collation-server=utf8mb4_general_ci",
                                                 "--innodb-buffer-pool-size=32M",
                                                 "--innodb-flush-log-at-trx-commit=0", "--performance-schema=ON"});
        if (!process_.waitForStarted(30000))
            return failed(why, "cannot start " + server + ": " + process_.errorString());
        for (int i = 0; i < 600; ++i) {
            if (process_.state() == QProcess::NotRunning)
                return failed(why, server + " exited: " + logTail());
            QProcess ping;
            ping.start(admin_, {"--no-defaults", "-S", socket_, "-u", "root", "--connect-timeout=2", "ping"});
            if (ping.waitForFinished(10000) && ping.exitStatus() == QProcess::NormalExit && ping.exitCode() == 0)
                break;
            if (i == 599)
                return failed(why, server + " did not answer on " + socket_ + " within 60 s: " + logTail());
            QThread::msleep(100);
        }
        const QString pw = password();
        if (!sql("CREATE USER '" + user() + "'@'%' IDENTIFIED BY '" + pw + "'; CREATE USER '" + user()
                     + "'@'localhost' IDENTIFIED BY '" + pw + "'; GRANT ALL ON *.* TO '" + user() + "'@'%'; GRANT ALL ON *.* TO '"
                     + user() + "'@'localhost'",
                 {}, why))
            return false;
        return true;
    }

    static QString user() { return "cache"; }
    static QString password() { return "mysql-pw-never-shown"; }
    int port() const { return port_; }
    QString socket() const { return socket_; }
    // Where the code under test connects: TCP on the port, or the socket.
    QString url(const QString& db) const { return QString("mysql://%1@127.0.0.1:%2/%3").arg(user()).arg(port_).arg(db); }
    QString socketUrl(const QString& db) const
    {
        return QString("mysql://%1@localhost/%2?socket=%3").arg(user(), db, socket_);
    }

    // Runs statements as root with the mariadb client (in database db when given).
    bool sql(const QString& statements, const QString& db, QString* why) const
    {
        QStringList args{"--no-defaults", "-S", socket_, "-u", "root"};
        if (!db.isEmpty())
            args << db;
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(client_, args);
        p.write(statements.toUtf8());
        p.closeWriteChannel();
        if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return failed(why, "mariadb: " + QString::fromUtf8(p.readAll()).trimmed());
        return true;
    }

    // Every table's definition and rows, as mariadb-dump writes them (no
    // date, one INSERT a row, in primary-key order): equal dumps, equal data.
    QByteArray dump(const QString& db) const
    {
        QProcess p;
        p.start(dump_, {"--no-defaults", "-S", socket_, "-u", "root", "--skip-dump-date", "--skip-extended-insert",
                        "--order-by-primary", "--single-transaction", db});
        if (!p.waitForFinished(120000) || p.exitCode() != 0)
            return "mariadb-dump failed: " + p.readAllStandardError();
        return p.readAllStandardOutput();
    }

    void stop()
    {
        if (process_.state() != QProcess::NotRunning) {
            process_.terminate();   // a clean shutdown
            if (!process_.waitForFinished(30000)) {
                process_.kill();
                process_.waitForFinished(10000);
            }
        }
    }

private:
    static QString findProgram(const QStringList& candidates)
    {
        for (const QString& c : candidates)
            if (QFileInfo(c).isExecutable())
                return c;
        return {};
    }
    QString log() const { return dir_->path() + "/log"; }
    QString logTail() const
    {
        QFile f(log());
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll().right(2000)).trimmed()
                                           : QString::fromUtf8(const_cast<QProcess&>(process_).readAll());
    }
    bool failed(QString* why, const QString& text) const
    {
        *why = text;
        return false;
    }

    std::unique_ptr<QTemporaryDir> dir_;
    QProcess process_;
    QString install_, client_, dump_, admin_, socket_;
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
