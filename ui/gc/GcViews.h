// Adds the GC views to a store document as two inner tabs ("Reachability",
// "GC") and wires them: a GC run notifies the document, whose storeChanged()
// refreshes the reachability view (and the run view's history).
#pragma once

namespace ui {
class StoreDocument;

void addGcViews(StoreDocument* document);

} // namespace ui
