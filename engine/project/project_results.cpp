// ProjectFile: the results a run stores and what reads them back — λ, metrics, curves, audits,
// logs, model files (the rest of the class is in project_file.cpp).
#include "engine/project/project_file.h"

#include "engine/core/file_door.h"

#include "engine/core/version.h"
#include "engine/data/sha256.h"
#include "engine/privacy/ledger_json.h"
#include "engine/project/process_identity.h"
#include "engine/project/project_file_support.h"
#include "engine/project/run_transitions.h"
#include "engine/project/schema.h"
#include "engine/project/spec_json.h"
#include "engine/project/sqlite_db.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace dpmix::project {
using namespace detail;
namespace fs = std::filesystem;
using nlohmann::json;

Result<long long> ProjectFile::addLambda(const LambdaRecord& lambda) {
    if (lambda.values.empty()) return Error{"λ (" + lambda.kind + "): empty weight vector"};
    if (!lambda.names.empty() && lambda.names.size() != lambda.values.size())
        return Error{"λ (" + lambda.kind + "): " + std::to_string(lambda.names.size()) + " names for " +
                     std::to_string(lambda.values.size()) + " weights"};
    if (auto e = refuseWrite("add λ")) return *e;
    for (std::size_t i = 0; i < lambda.values.size(); ++i)
        if (!std::isfinite(lambda.values[i]))
            return refuseNonFinite(lambda.runId, "λ (" + lambda.kind + "): weight " + std::to_string(i) +
                                                     (lambda.names.size() > i ? " (" + lambda.names[i] + ")" : "") +
                                                     " is " + showNumber(lambda.values[i]) + ", not a finite number");
    try {
        Transaction t(*db_);
        requireRun(*db_, lambda.runId);
        Statement s(db_->handle(), "INSERT INTO lambdas(run_id, kind, names_json, values_json) VALUES(?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(lambda.runId)).bind(2, lambda.kind).bind(3, jsonStrings(lambda.names));
        s.bind(4, json(lambda.values).dump()).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("lambdas"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add λ", e);
    }
}

Result<long long> ProjectFile::addMetrics(const std::vector<MetricRecord>& metrics) {
    if (auto e = refuseWrite("add metrics")) return *e;
    for (const MetricRecord& m : metrics)
        if (!std::isfinite(m.value))
            return refuseNonFinite(m.runId, "metric \"" + m.name + "\"" +
                                                (m.className.empty() ? "" : " (" + m.className + ")") + " is " +
                                                showNumber(m.value) + ", not a finite number");
    try {
        Transaction t(*db_);
        Statement s(db_->handle(), "INSERT INTO metrics(run_id, name, class_name, value) VALUES(?,?,?,?)");
        RowSealer sealer(*db_, chainedTable("metrics"));
        for (const MetricRecord& m : metrics) {
            requireRun(*db_, m.runId);
            s.bind(1, static_cast<std::int64_t>(m.runId)).bind(2, m.name).bind(3, m.className).bind(4, m.value).run();
            sealer.seal(db_->lastInsertRowId());
        }
        t.commit();
        return static_cast<long long>(metrics.size());
    } catch (const std::exception& e) {
        return storageError(path_, "add metrics", e);
    }
}

Result<long long> ProjectFile::addCurve(long long runId, const std::string& name,
                                        const std::vector<CurvePoint>& points) {
    if (name.empty()) return Error{"curve name: empty"};
    if (auto e = refuseWrite("add curve \"" + name + "\"")) return *e;
    try {
        Transaction t(*db_);
        requireRun(*db_, runId);
        Statement s(db_->handle(), "INSERT INTO curves(run_id, name, step, value) VALUES(?,?,?,?)");
        RowSealer sealer(*db_, chainedTable("curves"));
        for (const CurvePoint& p : points) {
            s.bind(1, static_cast<std::int64_t>(runId)).bind(2, name).bind(3, static_cast<std::int64_t>(p.step));
            s.bind(4, p.value).run();
            sealer.seal(db_->lastInsertRowId());
        }
        t.commit();
        return static_cast<long long>(points.size());
    } catch (const std::exception& e) {
        return storageError(path_, "add curve \"" + name + "\"", e);
    }
}

Result<long long> ProjectFile::addAudit(const AuditRecord& a) {
    if (json::parse(a.detailsJson, nullptr, false).is_discarded()) return Error{"audit details: not valid JSON"};
    if (auto e = refuseWrite("add an audit")) return *e;
    try {
        Transaction t(*db_);
        requireRun(*db_, a.runId);
        Statement s(db_->handle(),
                    "INSERT INTO audits(run_id, name, false_positives, false_negatives, negatives, positives, delta, "
                    "confidence, epsilon_lower_bound, details_json) VALUES(?,?,?,?,?,?,?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(a.runId)).bind(2, a.name);
        s.bind(3, static_cast<std::int64_t>(a.counts.falsePositives));
        s.bind(4, static_cast<std::int64_t>(a.counts.falseNegatives));
        s.bind(5, static_cast<std::int64_t>(a.counts.negatives)).bind(6, static_cast<std::int64_t>(a.counts.positives));
        s.bind(7, a.delta).bind(8, a.confidence).bind(9, a.epsilonLowerBound).bind(10, a.detailsJson).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("audits"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add an audit", e);
    }
}

Result<long long> ProjectFile::addLog(long long runId, const std::string& level, const std::string& message) {
    if (auto e = refuseWrite("add a log line")) return *e;
    try {
        Transaction t(*db_);
        requireRun(*db_, runId);
        Statement s(db_->handle(), "INSERT INTO logs(run_id, at, level, message) VALUES(?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, utcTimestamp()).bind(3, level).bind(4, message).run();
        const auto id = db_->lastInsertRowId();
        sealRow(*db_, chainedTable("logs"), id);
        t.commit();
        return static_cast<long long>(id);
    } catch (const std::exception& e) {
        return storageError(path_, "add a log line", e);
    }
}

Result<ModelRecord> ProjectFile::storeModel(long long runId, const std::string& name, const std::string& bytes) {
    if (auto e = refuseWrite("store model \"" + name + "\"")) return *e;
    ModelRecord m;
    m.runId = runId;
    m.name = name;
    m.contentHash = data::sha256Hex(bytes);
    m.fileName = m.contentHash + ".bin";
    m.bytes = static_cast<long long>(bytes.size());
    try {
        requireRun(*db_, runId);
        const fs::path dir = modelsDir();
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw std::runtime_error("cannot create the models folder " + dir.string() + ": " + ec.message());
        const fs::path target = dir / m.fileName;
        // Content-addressed: an existing file with this name already holds these bytes.
        if (!files::exists(target.string())) {
            const fs::path temp = target.string() + temporarySuffix();
            writeFileDurably(temp, bytes);  // removes its partial file on failure
            fs::rename(temp, target, ec);
            if (ec) {
                fs::remove(temp, ec);
                throw std::runtime_error("cannot rename " + temp.string() + " to " + target.string());
            }
        }
        Transaction t(*db_);
        Statement s(db_->handle(),
                    "INSERT INTO models(run_id, name, content_hash, file_name, bytes) VALUES(?,?,?,?,?)");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, name).bind(3, m.contentHash).bind(4, m.fileName);
        s.bind(5, static_cast<std::int64_t>(m.bytes)).run();
        sealRow(*db_, chainedTable("models"), db_->lastInsertRowId());
        t.commit();
        return m;
    } catch (const std::exception& e) {
        return storageError(path_, "store model \"" + name + "\"", e);
    }
}

Result<ModelRecord> ProjectFile::storeWeights(long long runId, const std::string& name,
                                              const std::vector<float>& weights) {
    if (auto e = refuseWrite("store model \"" + name + "\"")) return *e;
    std::size_t bad = 0;
    for (const float w : weights) bad += std::isfinite(w) ? 0 : 1;
    if (bad > 0) {
        std::size_t first = 0;
        while (std::isfinite(weights[first])) ++first;
        return refuseNonFinite(runId, "model \"" + name + "\": " + std::to_string(bad) + " of " +
                                          std::to_string(weights.size()) + " weights are not finite (the first, " +
                                          std::to_string(first) + ", is " + showNumber(weights[first]) + ")");
    }
    std::string bytes(weights.size() * sizeof(float), '\0');
    if (!bytes.empty()) std::memcpy(bytes.data(), weights.data(), bytes.size());
    return storeModel(runId, name, bytes);
}

Error ProjectFile::refuseNonFinite(long long runId, const std::string& what) {
    std::string outcome = "nothing was stored";
    try {
        Transaction t(*db_);
        auto current = run(runId);
        if (current && (current->status == RunStatus::Queued || current->status == RunStatus::Running)) {
            const std::string message = "failed: refused to store a result that is not a finite number: " + what;
            const std::string now = utcTimestamp();
            Statement s(db_->handle(), "UPDATE runs SET status = 'failed', message = ?, finished_at = ? WHERE id = ?");
            s.bind(1, message).bind(2, now).bind(3, static_cast<std::int64_t>(runId)).run();
            recordTransition(*db_, runId, "failed", now, message);
            t.commit();
            outcome += "; the run is marked failed";
        }
    } catch (const std::exception&) {  // the refusal itself is what the caller reports
    }
    return Error{path_.string() + ": run " + std::to_string(runId) + ": refused to store " + what + "; " + outcome};
}

Result<std::string> ProjectFile::loadModel(const ModelRecord& model) const {
    const fs::path file = modelsDir() / model.fileName;
    // Through the door: a model file of a received project replaced by a FIFO (a read that blocks)
    // or linked to /dev/zero (one that never ends) is refused, and no more than the recorded size
    // is ever read.
    if (!files::exists(file.string()))
        return Error{file.string() + ": model file missing (it must sit next to the project file)"};
    auto bytes = files::readRegularFile(file.string(), "a model file of " + std::to_string(model.bytes) + " bytes",
                                        static_cast<std::uint64_t>(std::max(0LL, model.bytes)));
    if (!bytes) return bytes.error();
    const std::string& data = *bytes;
    if (data::sha256Hex(data) != model.contentHash)
        return Error{file.string() + ": content does not match its recorded SHA-256 " + model.contentHash};
    return data;
}

Result<std::vector<LambdaRecord>> ProjectFile::lambdas(long long runId) const {
    try {
        Statement s(db_->handle(),
                    "SELECT run_id, kind, names_json, values_json FROM lambdas WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<LambdaRecord> out;
        while (s.step()) {
            LambdaRecord r;
            r.runId = s.integer(0);
            r.kind = s.text(1);
            r.names = stringsFromJson(s.text(2));
            const json values = json::parse(s.text(3), nullptr, false);
            if (values.is_array())
                for (const auto& v : values) r.values.push_back(v.is_number() ? v.get<double>() : std::nan(""));
            out.push_back(std::move(r));
        }
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read λ", e);
    }
}

Result<std::vector<MetricRecord>> ProjectFile::metrics(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT run_id, name, class_name, value FROM metrics WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<MetricRecord> out;
        while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2), s.isNull(3) ? std::nan("") : s.real(3)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read metrics", e);
    }
}

Result<std::vector<std::string>> ProjectFile::curveNames(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT name FROM curves WHERE run_id = ? GROUP BY name ORDER BY MIN(id)");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<std::string> out;
        while (s.step()) out.push_back(s.text(0));
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read curve names", e);
    }
}

Result<std::vector<CurvePoint>> ProjectFile::curve(long long runId, const std::string& name) const {
    try {
        Statement s(db_->handle(), "SELECT step, value FROM curves WHERE run_id = ? AND name = ? ORDER BY step, id");
        s.bind(1, static_cast<std::int64_t>(runId)).bind(2, name);
        std::vector<CurvePoint> out;
        while (s.step()) out.push_back({s.integer(0), s.isNull(1) ? std::nan("") : s.real(1)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read curve \"" + name + "\"", e);
    }
}

Result<std::vector<AuditRecord>> ProjectFile::audits(long long runId) const {
    try {
        Statement s(db_->handle(),
                    "SELECT run_id, name, false_positives, false_negatives, negatives, positives, delta, confidence, "
                    "epsilon_lower_bound, details_json FROM audits WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<AuditRecord> out;
        while (s.step()) {
            AuditRecord a;
            a.runId = s.integer(0);
            a.name = s.text(1);
            a.counts = {s.integer(2), s.integer(3), s.integer(4), s.integer(5)};
            a.delta = s.real(6);
            a.confidence = s.real(7);
            a.epsilonLowerBound = s.real(8);
            a.detailsJson = s.text(9);
            out.push_back(std::move(a));
        }
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read audits", e);
    }
}

Result<std::vector<LogRecord>> ProjectFile::logs(long long runId) const {
    try {
        Statement s(db_->handle(), "SELECT run_id, at, level, message FROM logs WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<LogRecord> out;
        while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read logs", e);
    }
}

Result<std::vector<ModelRecord>> ProjectFile::models(long long runId) const {
    try {
        Statement s(db_->handle(),
                    "SELECT run_id, name, content_hash, file_name, bytes FROM models WHERE run_id = ? ORDER BY id");
        s.bind(1, static_cast<std::int64_t>(runId));
        std::vector<ModelRecord> out;
        while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.integer(4)});
        return out;
    } catch (const std::exception& e) {
        return storageError(path_, "read models", e);
    }
}

}  // namespace dpmix::project
