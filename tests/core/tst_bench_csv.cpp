// The samples CSV dialect (core/bench/SamplesCsv.h) that the CLI, the GUI's
// export and `cachescope --render-samples` share: what is written reads back
// exactly (series with quotes and commas, numbers to the last bit, in any
// C locale), what spreadsheets add (CRLF, a byte order mark, unquoted
// series) is read, and anything else is one error naming file and line.
#include "core/bench/SamplesCsv.h"
#include "core/util/Error.h"

#include <QTest>

#include <clocale>
#include <cmath>
#include <limits>
#include <sstream>

class TestBenchCsv : public QObject {
    Q_OBJECT

    static std::vector<cs::Sample> parse(const std::string& text)
    {
        std::istringstream in(text);
        return cs::parseSamplesCsv(in, "samples.csv");
    }

    static QString errorOf(const std::string& text)
    {
        try {
            parse(text);
        } catch (const cs::Error& e) {
            return QString::fromStdString(e.what());
        }
        return {};
    }

private Q_SLOTS:
    void roundTripsExactly()
    {
        const std::vector<cs::Sample> samples = {
            {0, "throughput MB/s", 812.25},
            {0.1, "say \"hi\", then MB/s", 1e-300},
            {1234.5678901234567, "RSS MB", 123456789.123},
            {std::nextafter(2.0, 3.0), "", -0.0},
            {3, "ratio", std::numeric_limits<double>::max()},
        };
        // A locale with a decimal comma must change nothing.
        const bool german = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
        const std::string text = cs::samplesCsv(samples);
        std::setlocale(LC_ALL, "C");
        QVERIFY(text.rfind("t,series,value\n0,\"throughput MB/s\",812.25\n", 0) == 0);
        QVERIFY(text.find("\"say \"\"hi\"\", then MB/s\"") != std::string::npos);
        if (german)
            std::setlocale(LC_ALL, "de_DE.UTF-8");
        const auto back = parse(text);
        std::setlocale(LC_ALL, "C");
        QCOMPARE(back.size(), samples.size());
        for (size_t i = 0; i < samples.size(); ++i) {
            QCOMPARE(back[i].t, samples[i].t);   // bit for bit, not approximately
            QCOMPARE(back[i].series, samples[i].series);
            QCOMPARE(back[i].value, samples[i].value);
        }
    }

    void readsWhatSpreadsheetsWrite()
    {
        const auto s = parse("\xEF\xBB\xBFt,series,value\r\n1.5,rss MB,7\r\n\r\n2,\"a,b\",8\r\n");
        QCOMPARE(s.size(), size_t(2));
        QCOMPARE(s[0].series, std::string("rss MB"));
        QCOMPARE(s[1].series, std::string("a,b"));
        QCOMPARE(s[1].value, 8.0);
    }

    void refusesWithFileAndLine()
    {
        QCOMPARE(errorOf(""), QStringLiteral("samples.csv: empty file; expected the header t,series,value"));
        QCOMPARE(errorOf("run,t,series,value\n"), QStringLiteral("samples.csv: line 1: expected the header t,series,value"));
        QCOMPARE(errorOf("t,series,value\n1,\"a\",2\n1,a\"b,2\n"),
                 QStringLiteral("samples.csv: line 3: a quote inside an unquoted series"));
        QCOMPARE(errorOf("t,series,value\nx,a,2\n"), QStringLiteral("samples.csv: line 2: t is not a number"));
        QCOMPARE(errorOf("t,series,value\n1,a,2,5\n"), QStringLiteral("samples.csv: line 2: value is not a number"));
        QCOMPARE(errorOf("t,series,value\n1,\"a,2\n"), QStringLiteral("samples.csv: line 2: the quoted series has no closing quote"));
        QCOMPARE(errorOf("t,series,value\n1,5\n"), QStringLiteral("samples.csv: line 2: expected t,series,value"));
        QCOMPARE(errorOf("t,series,value\n1,a,2e999\n"), QStringLiteral("samples.csv: line 2: value is not a number"));
    }
};

QTEST_APPLESS_MAIN(TestBenchCsv)
#include "tst_bench_csv.moc"
