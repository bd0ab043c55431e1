// Every file under a folder with its size, mode, modification time and
// SHA-256, so a test can check that an operation changed no byte (and created
// or removed no file: a folder's mtime moves when an entry is added and
// removed again) anywhere in it. Symlinks are recorded by target, never followed.
#pragma once
#include "core/util/Sha256.h"

#include <QDateTime>
#include <QDirIterator>
#include <QFileInfo>
#include <QMap>
#include <QString>
#include <QStringList>

namespace testsupport {

using TreeHash = QMap<QString, QString>; // relative path -> "mode mtime size sha256" (or "-> target")

inline TreeHash hashTree(const QString& root)
{
    TreeHash out;
    QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo fi(path);
        const QString rel = QDir(root).relativeFilePath(path);
        const QString mode = QString::number(int(fi.permissions()), 16) + " "
                             + QString::number(fi.lastModified().toMSecsSinceEpoch());
        if (fi.isSymLink())
            out[rel] = "-> " + fi.symLinkTarget();
        else if (fi.isDir())
            out[rel] = mode + " dir";
        else
            out[rel] = mode + " " + QString::number(fi.size()) + " "
                       + QString::fromStdString(cs::Sha256::hex(cs::Sha256::ofFile(path.toStdString())));
    }
    return out;
}

// Names of the files that differ between two snapshots ("+a" added, "-b" removed, "~c" changed).
inline QStringList treeDifferences(const TreeHash& before, const TreeHash& after)
{
    QStringList diff;
    for (auto it = before.begin(); it != before.end(); ++it) {
        if (!after.contains(it.key()))
            diff << "-" + it.key();
        else if (after[it.key()] != it.value())
            diff << "~" + it.key();
    }
    for (auto it = after.begin(); it != after.end(); ++it)
        if (!before.contains(it.key()))
            diff << "+" + it.key();
    return diff;
}

} // namespace testsupport
