#include "ui/gc/GcViews.h"

#include "ui/gc/GcRunView.h"
#include "ui/gc/ReachabilityView.h"
#include "ui/store/StoreDocument.h"

namespace ui {

void addGcViews(StoreDocument* document)
{
    auto* reach = new ReachabilityView(document->storeDir());
    auto* run = new GcRunView(document->storeDir());
    document->addView(reach, QObject::tr("Reachability"));
    document->addView(run, QObject::tr("GC"));
    QObject::connect(run, &GcRunView::storeModified, document, &StoreDocument::notifyStoreChanged);
    QObject::connect(document, &StoreDocument::storeChanged, reach, &ReachabilityView::storeChanged);
    QObject::connect(document, &StoreDocument::storeChanged, run, &GcRunView::loadHistory);
}

} // namespace ui
