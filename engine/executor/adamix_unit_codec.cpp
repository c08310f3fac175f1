#include "engine/executor/adamix_unit_codec.h"

#include "engine/core/double_bits.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace dpmix::executor::adamix_codec {
namespace {

using experiments::AdamixCell;
using experiments::AdamixPerExample;
using nlohmann::json;

constexpr std::string_view kMagic = "dpmix-adamix-inputs/1\n";

// ---- binary: every array is its element count (uint64) then its elements, little-endian ----

class Writer {
public:
    void count(std::uint64_t n) { raw(&n, sizeof n); }
    template <typename T>
    void array(const T* data, std::size_t n) {
        count(n);
        raw(data, n * sizeof(T));
    }
    void matrix(const Eigen::MatrixXd& m) {  // rows, then the column-major values
        count(static_cast<std::uint64_t>(m.rows()));
        array(m.data(), static_cast<std::size_t>(m.size()));
    }
    template <typename T>
    void vector(const std::vector<T>& v) {
        array(v.data(), v.size());
    }
    void ints(const Eigen::VectorXi& v) { array(v.data(), static_cast<std::size_t>(v.size())); }
    std::string bytes;

private:
    void raw(const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); }
};

class Reader {
public:
    explicit Reader(const std::string& bytes) : bytes_(bytes) {}
    std::uint64_t count() {
        std::uint64_t n = 0;
        raw(&n, sizeof n);
        return n;
    }
    template <typename T>
    std::vector<T> vector() {
        const std::uint64_t n = count();
        if (n > (bytes_.size() - at_) / sizeof(T))
            throw std::invalid_argument("an array runs past the end of the file");
        std::vector<T> v(static_cast<std::size_t>(n));
        raw(v.data(), v.size() * sizeof(T));
        return v;
    }
    Eigen::MatrixXd matrix() {
        const std::uint64_t rows = count();
        const auto values = vector<double>();
        if (rows == 0 ? !values.empty() : values.size() % rows != 0)
            throw std::invalid_argument("a matrix's values are not rows × columns");
        Eigen::MatrixXd m(static_cast<Eigen::Index>(rows),
                          rows == 0 ? 0 : static_cast<Eigen::Index>(values.size() / rows));
        if (!values.empty()) std::memcpy(m.data(), values.data(), values.size() * sizeof(double));
        return m;
    }
    Eigen::VectorXi ints() {
        const auto v = vector<int>();
        return Eigen::Map<const Eigen::VectorXi>(v.data(), static_cast<Eigen::Index>(v.size()));
    }
    bool atEnd() const { return at_ == bytes_.size(); }
    void expect(std::string_view text) {
        if (bytes_.compare(at_, text.size(), text) != 0)
            throw std::invalid_argument("not a dpmix AdaMix-R inputs file");
        at_ += text.size();
    }

private:
    void raw(void* p, std::size_t n) {
        if (n > bytes_.size() - at_) throw std::invalid_argument("the file ends early (truncated)");
        if (n) std::memcpy(p, bytes_.data() + at_, n);
        at_ += n;
    }
    const std::string& bytes_;
    std::size_t at_ = 0;
};

void rowLists(Writer& w, const std::vector<std::vector<Eigen::Index>>& lists) {
    w.count(lists.size());
    for (const auto& l : lists) w.vector(l);
}

std::vector<std::vector<Eigen::Index>> rowLists(Reader& r) {
    const std::uint64_t n = r.count();
    if (n > 1u << 20) throw std::invalid_argument("implausible number of classes");
    std::vector<std::vector<Eigen::Index>> lists;
    for (std::uint64_t i = 0; i < n; ++i) lists.push_back(r.vector<Eigen::Index>());
    return lists;
}

// ---- JSON: doubles as the hex of their bits ----

std::string hex(double v) { return doubleToHexBits(v); }
double unhex(const json& j) { return doubleFromHexBitsOrThrow(j.get<std::string>()); }

json hexList(const double* v, std::size_t n) {
    json out = json::array();
    for (std::size_t i = 0; i < n; ++i) out.push_back(hex(v[i]));
    return out;
}

std::vector<double> unhexList(const json& j) {
    std::vector<double> out;
    for (const auto& v : j) out.push_back(unhex(v));
    return out;
}

Eigen::VectorXd vectorOf(const json& j) {
    const auto v = unhexList(j);
    return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

json cellJson(const AdamixCell& c) {
    return json{{"method", experiments::adamixMethodName(c.method)},
                {"epsilon", c.epsilon ? json(hex(*c.epsilon)) : json(nullptr)},
                {"shots", c.shots},
                {"private_per_class", c.privatePerClass},
                {"seed", c.seed},
                {"private_examples", c.privateExamples},
                {"public_examples", c.publicExamples},
                {"test_error", hex(c.testError)},
                {"error_increase", hex(c.errorIncrease)},
                {"sigma", hex(c.sigma)},
                {"delta", hex(c.delta)},
                {"q", hex(c.q)},
                {"certified_epsilon", hex(c.certifiedEpsilon)},
                {"clip", hex(c.clip)},
                {"steps", c.steps},
                {"per_example", c.perExample}};
}

AdamixCell cellOf(const json& j) {
    AdamixCell c;
    auto method = experiments::parseAdamixMethod(j.at("method").get<std::string>());
    if (!method) throw std::invalid_argument(method.error().message);
    c.method = *method;
    if (!j.at("epsilon").is_null()) c.epsilon = unhex(j.at("epsilon"));
    c.shots = j.at("shots").get<long long>();
    c.privatePerClass = j.at("private_per_class").get<long long>();
    c.seed = j.at("seed").get<long long>();
    c.privateExamples = j.at("private_examples").get<long long>();
    c.publicExamples = j.at("public_examples").get<long long>();
    c.testError = unhex(j.at("test_error"));
    c.errorIncrease = unhex(j.at("error_increase"));
    c.sigma = unhex(j.at("sigma"));
    c.delta = unhex(j.at("delta"));
    c.q = unhex(j.at("q"));
    c.certifiedEpsilon = unhex(j.at("certified_epsilon"));
    c.clip = unhex(j.at("clip"));
    c.steps = j.at("steps").get<long long>();
    c.perExample = j.at("per_example").get<long long>();
    return c;
}

json perExampleJson(const AdamixPerExample& p) {
    return json{{"cell", p.cell},
                {"source_index", p.sourceIndex},
                {"labels", p.labels},
                {"epsilon", hexList(p.epsilon.data(), static_cast<std::size_t>(p.epsilon.size()))},
                {"isolation", hexList(p.isolation.data(), static_cast<std::size_t>(p.isolation.size()))},
                {"loss", hexList(p.loss.data(), static_cast<std::size_t>(p.loss.size()))},
                {"quantile_levels", hexList(p.quantileLevels.data(), p.quantileLevels.size())},
                {"quantiles", hexList(p.quantiles.data(), p.quantiles.size())},
                {"dataset_epsilon", hex(p.datasetEpsilon)},
                {"spearman_loss", hex(p.spearmanLoss)},
                {"spearman_isolation", hex(p.spearmanIsolation)}};
}

AdamixPerExample perExampleOf(const json& j) {
    AdamixPerExample p;
    p.cell = j.at("cell").get<long long>();
    p.sourceIndex = j.at("source_index").get<std::vector<long long>>();
    p.labels = j.at("labels").get<std::vector<int>>();
    p.epsilon = vectorOf(j.at("epsilon"));
    p.isolation = vectorOf(j.at("isolation"));
    p.loss = vectorOf(j.at("loss"));
    p.quantileLevels = unhexList(j.at("quantile_levels"));
    p.quantiles = unhexList(j.at("quantiles"));
    p.datasetEpsilon = unhex(j.at("dataset_epsilon"));
    p.spearmanLoss = unhex(j.at("spearman_loss"));
    p.spearmanIsolation = unhex(j.at("spearman_isolation"));
    return p;
}

}  // namespace

std::string encodeInputs(const AdamixInputs& in) {
    Writer w;
    w.bytes.append(kMagic);
    const auto& g = in.input;
    w.count(static_cast<std::uint64_t>(g.classes));
    w.matrix(g.poolFeatures);
    w.ints(g.poolLabels);
    w.vector(g.poolSourceIndex);
    w.matrix(g.shotFeatures);
    w.ints(g.shotLabels);
    w.vector(g.shotSourceIndex);
    w.matrix(g.testFeatures);
    w.ints(g.testLabels);
    const auto& p = in.plan;
    w.count(static_cast<std::uint64_t>(p.classes));
    w.count(p.shotsFromPool ? 1 : 0);
    w.count(static_cast<std::uint64_t>(p.maxShots));
    w.count(p.seeds.size());
    for (const auto& s : p.seeds) {
        rowLists(w, s.shots);
        rowLists(w, s.privateRows);
    }
    w.vector(in.extractorWeights);
    return std::move(w.bytes);
}

Result<AdamixInputs> decodeInputs(const std::string& bytes) {
    if constexpr (std::endian::native != std::endian::little)
        return Error{
            "the AdaMix-R inputs file is little-endian and this host is not: run the units on x86-64 or aarch64 nodes"};
    AdamixInputs in;
    try {
        Reader r(bytes);
        r.expect(kMagic);
        auto& g = in.input;
        g.classes = static_cast<int>(r.count());
        g.poolFeatures = r.matrix();
        g.poolLabels = r.ints();
        g.poolSourceIndex = r.vector<long long>();
        g.shotFeatures = r.matrix();
        g.shotLabels = r.ints();
        g.shotSourceIndex = r.vector<long long>();
        g.testFeatures = r.matrix();
        g.testLabels = r.ints();
        auto& p = in.plan;
        p.classes = static_cast<int>(r.count());
        p.shotsFromPool = r.count() != 0;
        p.maxShots = static_cast<long long>(r.count());
        const std::uint64_t seeds = r.count();
        if (seeds > 1u << 20) throw std::invalid_argument("implausible number of seeds");
        for (std::uint64_t s = 0; s < seeds; ++s) {
            experiments::AdamixSeedDraw draw;
            draw.shots = rowLists(r);
            draw.privateRows = rowLists(r);
            p.seeds.push_back(std::move(draw));
        }
        in.extractorWeights = r.vector<float>();
        if (!r.atEnd()) throw std::invalid_argument("trailing bytes after the extractor's weights");
        if (g.poolFeatures.rows() != g.poolLabels.size() || g.testFeatures.rows() != g.testLabels.size() ||
            g.shotFeatures.rows() != g.shotLabels.size() || p.classes != g.classes)
            throw std::invalid_argument("features and labels disagree in size");
    } catch (const std::invalid_argument& e) {
        return Error{std::string("the AdaMix-R inputs file is malformed: ") + e.what()};
    }
    return in;
}

json partJson(const experiments::AdamixGridResult& part) {
    json cells = json::array(), perExample = json::array();
    for (const auto& c : part.cells) cells.push_back(cellJson(c));
    for (const auto& p : part.perExample) perExample.push_back(perExampleJson(p));
    return json{{"cells", cells}, {"per_example", perExample}};
}

experiments::AdamixGridResult partOf(const json& j) {
    experiments::AdamixGridResult r;
    for (const auto& c : j.at("cells")) r.cells.push_back(cellOf(c));
    for (const auto& p : j.at("per_example")) r.perExample.push_back(perExampleOf(p));
    return r;
}

}  // namespace dpmix::executor::adamix_codec
