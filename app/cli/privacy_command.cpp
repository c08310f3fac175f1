// `dpmix privacy ...`: the privacy calculator on the command line, one query or a CSV grid.
#include "app/cli/command.h"
#include "app/cli/number_parsing.h"
#include "engine/core/file_door.h"
#include "engine/privacy/accountant.h"
#include "engine/privacy/audit_bound.h"
#include "engine/privacy/dirichlet_accountant.h"
#include "engine/privacy/gaussian_accountant.h"
#include "engine/privacy/parameters.h"
#include "engine/privacy/prv_accountant.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

namespace dpmix::cli {
namespace {

using nlohmann::ordered_json;
using privacy::formatNumber;

enum class FieldKind { Real, Integer };

struct Field {
    std::string name;
    FieldKind kind;
    std::string help;
    std::string defaultValue;  // empty = required
};

using Values = std::map<std::string, double>;
using Outputs = std::vector<std::pair<std::string, double>>;

struct Calculator {
    std::string name;
    std::string description;
    std::vector<Field> fields;
    std::function<Result<Outputs>(const Values&, privacy::Accountant)> compute;
    bool choosesAccountant = false;  // takes --accountant rdp|prv
};

// A value the accountants cannot evaluate (e.g. alpha = 1e-200: trigamma overflows) is a clear
// error naming the inputs, never an uncaught exception.
Result<Outputs> computeSafely(const Calculator& calc, const Values& values, privacy::Accountant accountant) {
    try {
        return calc.compute(values, accountant);
    } catch (const std::exception& e) {
        std::string inputs;
        for (const auto& [name, value] : values)
            inputs += (inputs.empty() ? "" : ", ") + name + " = " + privacy::formatNumber(value);
        return Error{"these inputs are outside what the accountant can evaluate (" + inputs + "): " + e.what()};
    }
}

long long asInt(const Values& v, const char* key) { return static_cast<long long>(v.at(key)); }

// ε by the PRV accountant: the certified value (the smaller of the PRV upper bound and RDP), the
// PRV bracket with its stated error, and the RDP value beside it.
Result<Outputs> prvEpsilonOutputs(const privacy::GaussianMechanism& m, double delta) {
    auto c = privacy::prvCertifiedEpsilon({m}, delta);
    if (!c) return c.error();
    return Outputs{{"epsilon", c->epsilon},
                   {"epsilon_upper", c->prv.upper},
                   {"epsilon_lower", c->prv.lower},
                   {"epsilon_error", c->prv.epsilonError},
                   {"epsilon_rdp", c->rdpEpsilon}};
}

Result<Outputs> prvSigmaOutputs(const privacy::SigmaQuery& p) {
    auto c = privacy::calibrateGaussianSigmaPrv(p.epsilon, p.delta, p.q, p.steps);
    if (!c) return c.error();
    return Outputs{{"sigma", c->sigma},
                   {"epsilon_achieved", c->certificate.epsilon},
                   {"epsilon_upper", c->certificate.prv.upper},
                   {"epsilon_lower", c->certificate.prv.lower},
                   {"epsilon_error", c->certificate.prv.epsilonError},
                   {"sigma_rdp", c->rdpSigma},
                   {"saving_percent", 100.0 * (1.0 - c->sigma / c->rdpSigma)}};
}

std::vector<Calculator> calculators() {
    const Field q{"q", FieldKind::Real, "Poisson sampling rate in (0, 1]", ""};
    const Field steps{"steps", FieldKind::Integer, "number of steps (compositions), >= 1", ""};
    const Field delta{"delta", FieldKind::Real, "target delta in (0, 1)", ""};
    const Field epsilon{"epsilon", FieldKind::Real, "target epsilon > 0", ""};
    return {
        {"epsilon",
         "epsilon of the Poisson-subsampled Gaussian mechanism (RDP with the Opacus order grid, or PRV)",
         {q, {"sigma", FieldKind::Real, "noise multiplier (noise std / clip norm) > 0", ""}, steps, delta},
         [](const Values& v, privacy::Accountant accountant) -> Result<Outputs> {
             auto p = privacy::GaussianEpsilonQueryBuilder()
                          .q(v.at("q"))
                          .sigma(v.at("sigma"))
                          .steps(asInt(v, "steps"))
                          .delta(v.at("delta"))
                          .build();
             if (!p) return p.error();
             if (accountant == privacy::Accountant::Prv) return prvEpsilonOutputs(p->mechanism, p->delta);
             const auto r = privacy::gaussianEpsilon(p->mechanism, p->delta);
             return Outputs{{"epsilon", r.epsilon}, {"order", r.order}};
         },
         true},
        {"sigma",
         "smallest noise multiplier reaching a target epsilon (subsampled Gaussian, RDP or PRV)",
         {epsilon, delta, q, steps},
         [](const Values& v, privacy::Accountant accountant) -> Result<Outputs> {
             auto p = privacy::SigmaQueryBuilder()
                          .epsilon(v.at("epsilon"))
                          .delta(v.at("delta"))
                          .q(v.at("q"))
                          .steps(asInt(v, "steps"))
                          .build();
             if (!p) return p.error();
             if (accountant == privacy::Accountant::Prv) return prvSigmaOutputs(*p);
             const auto c = privacy::calibrateGaussianSigma(p->epsilon, p->delta, p->q, p->steps);
             if (!c) return c.error();
             return Outputs{{"sigma", c->sigma}, {"epsilon_achieved", c->epsilon}, {"order", c->order}};
         },
         true},
        {"dirichlet-r",
         "largest Dirichlet-mechanism scale r* reaching a target epsilon (Rao et al. 2026)",
         {epsilon, delta, {"alpha", FieldKind::Real, "concentration offset alpha > 0 (paper: 3)", ""}, q, steps},
         [](const Values& v, privacy::Accountant) -> Result<Outputs> {
             auto p = privacy::DirichletRQueryBuilder()
                          .epsilon(v.at("epsilon"))
                          .delta(v.at("delta"))
                          .alpha(v.at("alpha"))
                          .q(v.at("q"))
                          .steps(asInt(v, "steps"))
                          .build();
             if (!p) return p.error();
             const auto c = privacy::calibrateDirichletR(p->epsilon, p->delta, p->alpha, p->q, p->steps);
             if (!c) return c.error();
             return Outputs{{"r_star", c->r}, {"epsilon_achieved", c->epsilon}, {"order", c->order}};
         }},
        {"audit-bound",
         "empirical epsilon lower bound from a membership attack's errors (Clopper-Pearson)",
         {{"fp", FieldKind::Integer, "false positives (runs without the canary judged 'in')", ""},
          {"fn", FieldKind::Integer, "false negatives (runs with the canary judged 'out')", ""},
          {"negatives", FieldKind::Integer, "runs without the canary (N0)", ""},
          {"positives", FieldKind::Integer, "runs with the canary (N1)", ""},
          delta,
          {"confidence", FieldKind::Real, "confidence level of the Clopper-Pearson bounds", "0.95"}},
         [](const Values& v, privacy::Accountant) -> Result<Outputs> {
             auto p = privacy::AuditBoundQueryBuilder()
                          .fp(asInt(v, "fp"))
                          .fn(asInt(v, "fn"))
                          .negatives(asInt(v, "negatives"))
                          .positives(asInt(v, "positives"))
                          .delta(v.at("delta"))
                          .confidence(v.at("confidence"))
                          .build();
             if (!p) return p.error();
             const auto b = privacy::auditEpsilonLowerBound(p->counts, p->delta, p->confidence);
             return Outputs{{"epsilon_lb", b.epsilonLB}, {"fpr_ub", b.fprUpper}, {"fnr_ub", b.fnrUpper}};
         }},
    };
}

// Parses one set of raw values (from flags or a CSV row); `where` prefixes messages.
Result<Values> parseValues(const Calculator& calc, const std::map<std::string, std::string>& raw,
                           const std::string& wherePrefix) {
    Values values;
    for (const auto& f : calc.fields) {
        auto it = raw.find(f.name);
        std::string text = it != raw.end() ? it->second : f.defaultValue;
        const std::string where = wherePrefix + f.name;
        if (text.empty()) return Error{"missing " + where + ": " + f.help};
        if (f.kind == FieldKind::Integer) {
            auto n = parseInteger(text, where);
            if (!n) return n.error();
            values[f.name] = static_cast<double>(*n);
        } else {
            auto x = parseReal(text, where);
            if (!x) return x.error();
            // A target ε beyond 1e6 means no privacy, and overflows the calibration's search.
            if (f.name == "epsilon" && !(*x > 0 && *x <= 1e6))
                return Error{where + " = " + text + " is out of range: expected ε in (0, 1e6]"};
            values[f.name] = *x;
        }
    }
    return values;
}

ordered_json numberJson(double v) {
    if (std::isinf(v)) return "inf";
    if (std::isnan(v)) return nullptr;
    return v;
}

std::string humanNumber(double v) {
    std::ostringstream s;
    s.precision(10);
    s << v;
    return s.str();
}

void printResult(const Calculator& calc, const Values& in, const Outputs& out, bool json,
                 privacy::Accountant accountant) {
    if (json) {
        ordered_json j;
        for (const auto& f : calc.fields) {
            if (f.kind == FieldKind::Integer)
                j[f.name] = static_cast<long long>(in.at(f.name));
            else
                j[f.name] = in.at(f.name);
        }
        if (calc.choosesAccountant) j["accountant"] = privacy::toString(accountant);
        for (const auto& [k, v] : out) j[k] = numberJson(v);
        std::cout << j.dump() << '\n';
        return;
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        std::cout << (i ? ", " : "") << out[i].first << " = " << humanNumber(out[i].second);
    std::cout << "   (";
    for (std::size_t i = 0; i < calc.fields.size(); ++i)
        std::cout << (i ? ", " : "") << calc.fields[i].name << "=" << humanNumber(in.at(calc.fields[i].name));
    if (calc.choosesAccountant) std::cout << ", accountant=" << privacy::toString(accountant);
    std::cout << ")\n";
}

// One CSV line's cells, trimmed of blanks; a cell may be quoted ("q", with "" for a quote inside,
// as spreadsheets write headers), and a quoted cell may hold commas.
std::vector<std::string> splitCsvLine(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false, wasQuoted = false;
    auto finish = [&] {
        if (!wasQuoted) {
            while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r')) cell.pop_back();
            while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
        }
        cells.push_back(cell);
        cell.clear();
        wasQuoted = false;
    };
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"' && cell.find_first_not_of(' ') == std::string::npos) {
            cell.clear();
            quoted = wasQuoted = true;
        } else if (c == ',') {
            finish();
        } else if (!(wasQuoted && (c == ' ' || c == '\r'))) {
            cell += c;
        }
    }
    if (!line.empty() || !cells.empty()) finish();
    return cells;
}

// Every column must be a flag of this calculator, named once: a column that is ignored (a typo,
// a value meant for another calculator) or named twice (which one counts?) is refused, and every
// flag without a default needs its column. Prints what is wrong.
bool headerIsValid(const Calculator& calc, const std::vector<std::string>& header, const std::string& path) {
    std::vector<std::string> names;
    for (const auto& f : calc.fields) names.push_back(f.name);
    auto expected = [&] {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        return list;
    };
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (std::find(names.begin(), names.end(), header[i]) == names.end()) {
            std::cerr << path << ": column " << i + 1 << " of the header is '" << header[i]
                      << "', not a flag of `privacy " << calc.name << "` (the columns are: " << expected() << ")\n";
            return false;
        }
        if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(i), header[i]) !=
            header.begin() + static_cast<std::ptrdiff_t>(i)) {
            std::cerr << path << ": column '" << header[i] << "' is named twice in the header\n";
            return false;
        }
    }
    for (const auto& f : calc.fields) {
        if (!f.defaultValue.empty()) continue;
        if (std::find(header.begin(), header.end(), f.name) == header.end()) {
            std::cerr << path << ": missing column '" << f.name << "' (" << f.help << "); the header needs:";
            for (const auto& g : calc.fields) std::cerr << ' ' << g.name;
            std::cerr << '\n';
            return false;
        }
    }
    return true;
}

// Runs the calculator over every row of a CSV file; returns the exit status.
int runCsv(const Calculator& calc, const std::string& path, bool json, privacy::Accountant accountant) {
    // Through the door: a FIFO or /dev/zero is refused (they blocked, or read 2.6 GB in 6 s), and a
    // grid of queries is small: more than 64 MiB is refused before it is read.
    auto text = files::readRegularFile(path, "a CSV file of queries", std::uint64_t(64) << 20);
    if (!text) {
        std::cerr << "dpmix privacy " << calc.name << ": cannot read the CSV file: " << text.error().message << '\n';
        return 2;
    }
    // A UTF-8 byte-order mark (spreadsheets write one) is not part of the first column's name.
    std::string content = std::move(text).value();
    if (content.rfind("\xEF\xBB\xBF", 0) == 0) content.erase(0, 3);
    std::istringstream in(content);
    std::string line;
    if (!std::getline(in, line)) {
        std::cerr << path << ": empty file: expected a header row naming the columns\n";
        return 2;
    }
    const auto header = splitCsvLine(line);
    if (!headerIsValid(calc, header, path)) return 2;
    int status = 0;
    bool headerPrinted = json;
    long long rowNumber = 1, dataRows = 0;
    while (std::getline(in, line)) {
        ++rowNumber;
        if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
        ++dataRows;
        const auto cells = splitCsvLine(line);
        if (cells.size() > header.size()) {
            std::cerr << path << ": row " << rowNumber << " has " << cells.size() << " cells, the header "
                      << header.size() << " columns\n";
            status = 2;
            continue;
        }
        std::map<std::string, std::string> raw;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) raw[header[i]] = cells[i];
        const std::string where = path + ": row " + std::to_string(rowNumber) + ", column ";
        auto values = parseValues(calc, raw, where);
        Result<Outputs> out = values ? computeSafely(calc, *values, accountant) : Result<Outputs>(values.error());
        if (!out) {
            const std::string msg = out.error().message;
            std::cerr << (msg.rfind(path, 0) == 0 ? msg : path + ": row " + std::to_string(rowNumber) + ": " + msg)
                      << '\n';
            status = 2;
            continue;
        }
        if (!headerPrinted) {  // output header: the input columns, then the results
            for (std::size_t i = 0; i < calc.fields.size(); ++i) std::cout << (i ? "," : "") << calc.fields[i].name;
            if (calc.choosesAccountant) std::cout << ",accountant";
            for (const auto& [k, v] : *out) std::cout << ',' << k;
            std::cout << '\n';
            headerPrinted = true;
        }
        if (json) {
            printResult(calc, *values, *out, true, accountant);
        } else {
            for (std::size_t i = 0; i < calc.fields.size(); ++i)
                std::cout << (i ? "," : "") << humanNumber(values->at(calc.fields[i].name));
            if (calc.choosesAccountant) std::cout << ',' << privacy::toString(accountant);
            for (const auto& [k, v] : *out) std::cout << ',' << humanNumber(v);
            std::cout << '\n';
        }
    }
    if (dataRows == 0) {
        std::cerr << path << ": only a header, no row to compute (one query per row after the header)\n";
        return 2;
    }
    return status;
}

struct CalculatorArgs {
    Calculator calc;
    std::map<std::string, std::string> raw;  // flag name → the text given ("" when absent)
    std::pair<bool, std::string> mode;       // --json, --csv
    std::string accountant = "rdp";          // --accountant (epsilon, sigma)
};

}  // namespace

void registerPrivacyCommand(CLI::App& app, CommandContext& ctx) {
    auto* privacy = app.add_subcommand("privacy", "Privacy calculator: epsilon, sigma, Dirichlet r*, audit bounds");
    privacy->require_subcommand(1);
    // One calculator per sub-command, with its raw flag values; each callback holds its own
    // (CLI11 writes into them when it parses, so they live as long as the command).
    for (const auto& definition : calculators()) {
        auto state = std::make_shared<CalculatorArgs>();
        state->calc = definition;
        const Calculator& calc = state->calc;
        auto* sub = privacy->add_subcommand(calc.name, calc.description);
        auto* raw = &state->raw;
        auto* mode = &state->mode;
        for (const auto& f : calc.fields) {
            const std::string help = f.help + (f.defaultValue.empty() ? "" : " (default " + f.defaultValue + ")");
            sub->add_option("--" + f.name, (*raw)[f.name], help);
        }
        sub->add_flag("--json", mode->first, "print one JSON object per result");
        sub->add_option("--csv", mode->second, "read many queries from a CSV file whose header names the flags");
        if (calc.choosesAccountant)
            sub->add_option("--accountant", state->accountant,
                            "rdp (Renyi DP, the default here) or prv (privacy loss distributions: a certified "
                            "upper bound with error 0.01 in epsilon, and its lower bound)")
                ->check(CLI::IsMember({"rdp", "prv"}));
        sub->callback([state, &ctx] {
            const Calculator& calc = state->calc;
            const auto* raw = &state->raw;
            const auto* mode = &state->mode;
            privacy::Accountant accountant = privacy::Accountant::Rdp;
            privacy::parseAccountant(state->accountant, accountant);  // CLI11 admitted only rdp and prv
            if (!mode->second.empty()) {
                // Values come from the file or from flags, never both (a flag beside --csv was
                // silently ignored).
                for (const auto& [k, v] : *raw)
                    if (!v.empty()) {
                        std::cerr << "dpmix privacy " << calc.name << ": --" << k << " and --csv: give the values "
                                  << "either as flags or as columns of the CSV file, not both\n";
                        ctx.exitCode = 2;
                        return;
                    }
                ctx.exitCode = runCsv(calc, mode->second, mode->first, accountant);
                return;
            }
            std::map<std::string, std::string> given;
            for (const auto& [k, v] : *raw)
                if (!v.empty()) given[k] = v;
            auto values = parseValues(calc, given, "--");
            Result<Outputs> out = values ? computeSafely(calc, *values, accountant) : Result<Outputs>(values.error());
            if (!out) {
                std::string msg = out.error().message;
                // Builder messages name the field bare ("q = 2 ..."): show it as the flag. Other
                // messages (the accountant's "no noise multiplier ...") stay as they are.
                for (const auto& f : calc.fields)
                    if (msg.rfind(f.name + " ", 0) == 0 || msg.rfind(f.name + ":", 0) == 0) {
                        msg = "--" + msg;
                        break;
                    }
                std::cerr << "dpmix privacy " << calc.name << ": " << msg << '\n';
                ctx.exitCode = 2;
                return;
            }
            printResult(calc, *values, *out, mode->first, accountant);
        });
    }
}

}  // namespace dpmix::cli
