// File > Open Cache Server…: a github-actions-cache-server deployment that
// keeps its catalog in PostgreSQL (DB_DRIVER=postgres) and its files in an
// S3-compatible bucket (STORAGE_DRIVER=s3); either half may also be local
// (a sqlite.db, a storage folder), as the server allows.
//
// Secrets (the database password, the S3 secret key and session token) come
// from the environment (PGPASSWORD or ~/.pgpass, AWS_*) or are typed in
// here; typed ones live in the returned location only, in memory. QSettings
// keeps the database URL without its password, the bucket, endpoint and
// region, so the next open starts from them: never a secret, never a key id.
//
// Open checks the deployment off the GUI thread (connect and check the
// tables, then one listing of the bucket), with progress and Cancel; the
// dialog is accepted only when both halves answered.
#pragma once
#include "ui/actions/ActionsData.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace ui {
struct JobOutcome;
class JobProgressWidget;
class JobRunner;

class CacheServerDialog : public QDialog {
    Q_OBJECT
public:
    explicit CacheServerDialog(QWidget* parent = nullptr);
    ~CacheServerDialog() override;

    // The checked deployment, after accept().
    const ActionsDataLocation& location() const { return location_; }

    // For tests.
    QLineEdit* databaseEdit() const { return database_; }
    QLineEdit* databasePasswordEdit() const { return dbPassword_; }
    QLineEdit* storageEdit() const { return storage_; }
    QLineEdit* endpointEdit() const { return endpoint_; }
    QLineEdit* regionEdit() const { return region_; }
    QLineEdit* accessKeyIdEdit() const { return accessKeyId_; }
    QLineEdit* secretKeyEdit() const { return secretKey_; }
    QLineEdit* sessionTokenEdit() const { return sessionToken_; }
    QLabel* errorLabel() const { return error_; }
    JobProgressWidget* progress() const { return progress_; }
    JobRunner* runner() const { return runner_; }
    bool isOpening() const;

    // The settings keys this dialog writes (tests check that no secret is among them).
    static QStringList settingsKeys();

public Q_SLOTS:
    // Checks the form, then starts opening (accept() when it answered).
    void startOpening();

private:
    void onOpened(cs::actions::DataDirPaths paths);
    void onOpenEnded(const JobOutcome& outcome);
    void setEditing(bool editing);
    void saveSettings() const;

    QLineEdit* database_;
    QLineEdit* dbPassword_;
    QLineEdit* storage_;
    QLineEdit* endpoint_;
    QLineEdit* region_;
    QLineEdit* accessKeyId_;
    QLineEdit* secretKey_;
    QLineEdit* sessionToken_;
    QLabel* error_;
    JobProgressWidget* progress_;
    JobRunner* runner_;
    QDialogButtonBox* buttons_;
    ActionsDataLocation location_;
};

} // namespace ui
