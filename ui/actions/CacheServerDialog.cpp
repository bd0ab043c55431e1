#include "ui/actions/CacheServerDialog.h"

#include "core/actions-cache/RemoteBackends.h"
#include "core/jobs/Job.h"
#include "core/remote/Conninfo.h"
#include "ui/jobs/JobProgressWidget.h"
#include "ui/jobs/JobRunner.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QVBoxLayout>

#include <cstdlib>

namespace ui {

namespace {

const char* const kGroup = "cacheServer";

// The database URL as settings keep it: without any password.
QString withoutPassword(const std::string& conninfo)
{
    QString s = QString::fromStdString(cs::remote::redactConninfo(conninfo));
    s.remove(QRegularExpression(QStringLiteral("[?&]password=\\*\\*\\*")));
    s.remove(QRegularExpression(QStringLiteral("\\s*\\bpassword\\s*=\\s*\\*\\*\\*"), QRegularExpression::CaseInsensitiveOption));
    return s.trimmed();
}

bool envSet(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v;
}

QString envHint(const char* name, const QString& otherwise)
{
    return envSet(name) ? CacheServerDialog::tr("from %1 (set)").arg(QLatin1String(name)) : otherwise;
}

QLineEdit* secretEdit(QWidget* parent)
{
    auto* e = new QLineEdit(parent);
    e->setEchoMode(QLineEdit::Password);
    // Never offered to an input method's memory or a clipboard manager.
    e->setInputMethodHints(Qt::ImhSensitiveData | Qt::ImhNoPredictiveText | Qt::ImhHiddenText);
    return e;
}

} // namespace

CacheServerDialog::CacheServerDialog(QWidget* parent)
    : QDialog(parent),
      database_(new QLineEdit(this)),
      dbPassword_(secretEdit(this)),
      storage_(new QLineEdit(this)),
      endpoint_(new QLineEdit(this)),
      region_(new QLineEdit(this)),
      accessKeyId_(new QLineEdit(this)),
      secretKey_(secretEdit(this)),
      sessionToken_(secretEdit(this)),
      error_(new QLabel(this)),
      progress_(new JobProgressWidget(this)),
      runner_(new JobRunner(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Open Cache Server"));
    setObjectName(QStringLiteral("cacheServerDialog"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("A github-actions-cache-server deployment with <code>DB_DRIVER=postgres</code> or "
                                "<code>mysql</code> and "
                                "<code>STORAGE_DRIVER=s3</code> or <code>gcs</code> (either half may also be a local sqlite.db or "
                                "storage folder). It opens read-only: nothing is written until you confirm a write."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    database_->setPlaceholderText(QStringLiteral("postgres://USER@HOST:5432/DB"));
    dbPassword_->setPlaceholderText(envHint("PGPASSWORD", tr("when empty: PGPASSWORD or ~/.pgpass (PostgreSQL), MYSQL_PWD (MySQL)")));
    storage_->setPlaceholderText(QStringLiteral("s3://BUCKET[/PREFIX] or gs://BUCKET[/PREFIX]"));
    endpoint_->setPlaceholderText(envSet("AWS_ENDPOINT_URL") ? tr("from AWS_ENDPOINT_URL (set)")
                                                             : tr("AWS when empty; https://minio.internal:9000 for MinIO"));
    region_->setPlaceholderText(envSet("AWS_REGION") ? tr("from AWS_REGION (set)") : QStringLiteral("us-east-1"));
    accessKeyId_->setPlaceholderText(envHint("AWS_ACCESS_KEY_ID", tr("AWS_ACCESS_KEY_ID is not set")));
    secretKey_->setPlaceholderText(envHint("AWS_SECRET_ACCESS_KEY", tr("AWS_SECRET_ACCESS_KEY is not set")));
    sessionToken_->setPlaceholderText(envHint("AWS_SESSION_TOKEN", tr("only for temporary credentials")));
    database_->setObjectName(QStringLiteral("database"));
    dbPassword_->setObjectName(QStringLiteral("databasePassword"));
    storage_->setObjectName(QStringLiteral("storage"));
    endpoint_->setObjectName(QStringLiteral("endpoint"));
    region_->setObjectName(QStringLiteral("region"));
    accessKeyId_->setObjectName(QStringLiteral("accessKeyId"));
    secretKey_->setObjectName(QStringLiteral("secretAccessKey"));
    sessionToken_->setObjectName(QStringLiteral("sessionToken"));
    form->addRow(tr("&Database URL:"), database_);
    form->addRow(tr("Database &password:"), dbPassword_);
    form->addRow(tr("&Bucket / prefix:"), storage_);
    form->addRow(tr("&Endpoint:"), endpoint_);
    form->addRow(tr("&Region:"), region_);
    form->addRow(tr("Access &key ID:"), accessKeyId_);
    form->addRow(tr("&Secret access key:"), secretKey_);
    form->addRow(tr("Session &token:"), sessionToken_);
    layout->addLayout(form);
    auto* note = new QLabel(tr("Passwords and keys typed here are kept in memory for this window only: never saved, "
                               "never shown in messages."),
                            this);
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(note);
    error_->setObjectName(QStringLiteral("openError"));
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral("color: #c0392b"));
    error_->hide();
    layout->addWidget(error_);
    layout->addWidget(progress_);
    progress_->attach(runner_);
    layout->addWidget(buttons_);
    setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('0')) * 80);

    QSettings settings;
    settings.beginGroup(QLatin1String(kGroup));
    database_->setText(settings.value(QStringLiteral("database")).toString());
    storage_->setText(settings.value(QStringLiteral("storage")).toString());
    endpoint_->setText(settings.value(QStringLiteral("endpoint")).toString());
    region_->setText(settings.value(QStringLiteral("region")).toString());

    connect(buttons_, &QDialogButtonBox::accepted, this, &CacheServerDialog::startOpening);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(runner_, &JobRunner::finished, this, &CacheServerDialog::onOpenEnded);
    // Closing the dialog while it opens drops the attempt (the worker stops
    // at its next cancel check; a database connect gives up within 10 s).
    connect(this, &QDialog::rejected, runner_, &JobRunner::cancel);
}

CacheServerDialog::~CacheServerDialog() = default;

QStringList CacheServerDialog::settingsKeys()
{
    const QString g = QLatin1String(kGroup) + QLatin1Char('/');
    return {g + QStringLiteral("database"), g + QStringLiteral("storage"), g + QStringLiteral("endpoint"),
            g + QStringLiteral("region")};
}

bool CacheServerDialog::isOpening() const
{
    return runner_->isRunning();
}

void CacheServerDialog::setEditing(bool editing)
{
    for (QLineEdit* e : {database_, dbPassword_, storage_, endpoint_, region_, accessKeyId_, secretKey_, sessionToken_})
        e->setEnabled(editing);
    buttons_->button(QDialogButtonBox::Open)->setEnabled(editing);
}

void CacheServerDialog::startOpening()
{
    if (isOpening())
        return;
    const QString db = database_->text().trimmed();
    const QString storage = storage_->text().trimmed();
    if (db.isEmpty() || storage.isEmpty()) {
        error_->setText(tr("Name both halves: the database (postgres://…, mysql://… or a sqlite.db) and the storage "
                           "(s3://BUCKET[/PREFIX], gs://BUCKET[/PREFIX] or a folder)."));
        error_->show();
        return;
    }
    if (accessKeyId_->text().isEmpty() != secretKey_->text().isEmpty()) {
        error_->setText(tr("Type both the access key ID and the secret access key, or neither (then both come "
                           "from the environment)."));
        error_->show();
        return;
    }
    cs::actions::DataDirPaths paths;
    paths.dbPath = db.toStdString();
    paths.storageDir = storage.toStdString();
    paths.endpoint = endpoint_->text().trimmed().toStdString();
    paths.region = region_->text().trimmed().toStdString();
    paths.credentials.dbPassword = dbPassword_->text().toStdString();
    paths.credentials.accessKeyId = accessKeyId_->text().trimmed().toStdString();
    paths.credentials.secretAccessKey = secretKey_->text().toStdString();
    paths.credentials.sessionToken = sessionToken_->text().toStdString();
    error_->hide();
    setEditing(false);
    runner_->start(
        tr("Opening the cache server"),
        [paths](cs::Job& job) {
            // The same checks a read makes (existence of local halves, the v9
            // tables, the bucket and the credentials), each half closed again.
            job.beginStep(0, cs::remote::redactConninfo(paths.dbPath));
            cs::actions::resolveDataDir({}, paths.dbPath, paths.storageDir);
            cs::actions::openCatalogAt(paths.dbPath, false, paths.credentials);
            job.checkCancel();
            job.beginStep(1, paths.storageDir);
            cs::actions::openStorageAt(paths.storageDir,
                                       cs::actions::RemoteOptions{paths.endpoint, paths.region, paths.credentials}, &job);
            job.checkCancel();
            return paths;
        },
        [this](cs::actions::DataDirPaths opened) { onOpened(std::move(opened)); },
        {tr("Connecting to the database"), tr("Checking the storage")});
}

void CacheServerDialog::onOpened(cs::actions::DataDirPaths paths)
{
    setEditing(true);
    location_ = ActionsDataLocation{};
    location_.paths = std::move(paths);
    saveSettings();
    accept();
}

void CacheServerDialog::onOpenEnded(const JobOutcome& outcome)
{
    if (outcome.ok())
        return;   // onOpened took it
    setEditing(true);
    if (outcome.failed()) {
        error_->setText(outcome.message);
        error_->show();
    }
}

void CacheServerDialog::saveSettings() const
{
    QSettings settings;
    settings.beginGroup(QLatin1String(kGroup));
    settings.setValue(QStringLiteral("database"), withoutPassword(location_.paths.dbPath));
    settings.setValue(QStringLiteral("storage"), QString::fromStdString(location_.paths.storageDir));
    settings.setValue(QStringLiteral("endpoint"), QString::fromStdString(location_.paths.endpoint));
    settings.setValue(QStringLiteral("region"), QString::fromStdString(location_.paths.region));
}

} // namespace ui
