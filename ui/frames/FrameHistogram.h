// Histogram of frame compressed sizes in power-of-two buckets (bucket b holds
// sizes in [2^b, 2^(b+1))), one stacked QCPBars per frame category so the
// colours match the band. Themed by PlotTheme.
#pragma once
#include "ui/frames/FrameDigest.h"

#include <qcustomplot.h>

#include <vector>

namespace ui {

class FrameHistogram : public QCustomPlot {
    Q_OBJECT
public:
    explicit FrameHistogram(QWidget* parent = nullptr);

    // The counts come from digestFrames() (computed off the GUI thread).
    void setSizes(const std::array<FrameDigest::Buckets, kFrameCategoryCount>& sizes);
    // Buckets shown, and the power of two of the first.
    int bucketCount() const { return lastBucket_ - firstBucket_ + 1; }
    int firstBucket() const { return firstBucket_; }

    QSize sizeHint() const override { return {420, 260}; }

private:
    int firstBucket_ = 0;
    int lastBucket_ = -1;
};

} // namespace ui
