// "jsonl" and "text-folder" loaders.
#include "engine/data/text_loaders.h"

#include "engine/data/file_bytes.h"
#include "engine/data/loader_options.h"
#include "engine/data/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace dpmix::data {

Status checkEncodingErrorsOption(const SourceSpec& spec) {
    const std::string policy = optionOr(spec, "encoding_errors", "error");
    if (policy != "error" && policy != "replace")
        return Error{sourceContext(spec) + "option 'encoding_errors' = '" + policy +
                     "' is not valid, expected error or replace"};
    return std::nullopt;
}

Result<std::string> checkedUtf8(const SourceSpec& spec, std::string text, const std::string& where) {
    std::size_t bad = 0;
    if (isValidUtf8(text, &bad)) return text;
    const std::string policy = optionOr(spec, "encoding_errors", "error");
    if (policy == "replace") return replaceInvalidUtf8(text);
    if (policy != "error")
        return Error{sourceContext(spec) + "option 'encoding_errors' = '" + policy +
                     "' is not valid, expected error or replace"};
    return Error{sourceContext(spec) + where + ": text is not valid UTF-8 (byte " + std::to_string(bad) +
                 " of the document); re-encode it or set encoding_errors=replace"};
}

Result<TextCorpus> loadJsonlSource(const SourceSpec& spec) {
    if (auto unknown = checkKnownOptions(spec, {"domain", "encoding_errors"})) return *unknown;
    if (auto e = checkEncodingErrorsOption(spec)) return *e;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    auto bytes = readFileMaybeGzip(spec.path);
    if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
    std::string stem = std::filesystem::path(spec.path).stem().string();
    if (stem.size() > 6 && stem.substr(stem.size() - 6) == ".jsonl") stem.resize(stem.size() - 6);  // x.jsonl.gz
    const std::string defaultDomain = optionOr(spec, "domain", stem);
    TextCorpus corpus;
    const std::string& s = *bytes;
    std::size_t lineNo = 0;
    for (std::size_t i = 0; i < s.size() && corpus.documents.size() < *limit;) {
        const std::size_t eol = std::min(s.find('\n', i), s.size());
        const std::string_view line(s.data() + i, eol - i);
        ++lineNo;
        i = eol + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const std::string where = "file '" + spec.path + "', line " + std::to_string(lineNo);
        // Check the raw bytes first: nlohmann's own UTF-8 error does not say where.
        std::size_t bad = 0;
        if (!isValidUtf8(line, &bad) && optionOr(spec, "encoding_errors", "error") == "error")
            return Error{sourceContext(spec) + where + ": not valid UTF-8 (byte " + std::to_string(bad) +
                         " of the line); re-encode it or set encoding_errors=replace"};
        nlohmann::json record;
        try {
            record = nlohmann::json::parse(isValidUtf8(line) ? std::string(line) : replaceInvalidUtf8(line));
        } catch (const nlohmann::json::exception& e) {
            return Error{sourceContext(spec) + where + ": not valid JSON (" + e.what() + ")"};
        }
        if (!record.is_object() || !record.contains("text") || !record["text"].is_string())
            return Error{sourceContext(spec) + where + ": expected an object with a string field \"text\""};
        TextDocument doc;
        doc.text = record["text"].get<std::string>();
        for (const char* key : {"user", "domain"}) {
            if (!record.contains(key) || record[key].is_null()) continue;
            const auto& v = record[key];
            if (!v.is_string() && !v.is_number_integer())
                return Error{sourceContext(spec) + where + ": field \"" + key + "\" must be a string or an integer"};
            (std::string(key) == "user" ? doc.user : doc.domain) = v.is_string() ? v.get<std::string>() : v.dump();
        }
        if (doc.domain.empty()) doc.domain = defaultDomain;
        corpus.documents.push_back(std::move(doc));
    }
    if (corpus.documents.empty())
        return Error{sourceContext(spec) + "file '" + spec.path + "' holds no documents (empty data set)"};
    return corpus;
}

Result<TextCorpus> loadTextFolderSource(const SourceSpec& spec, const LoadControl& control) {
    if (auto unknown = checkKnownOptions(spec, {"domain", "split", "encoding_errors"})) return *unknown;
    if (auto e = checkEncodingErrorsOption(spec)) return *e;
    auto limit = limitOption(spec);
    if (!limit) return limit.error();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(spec.path, ec))
        return Error{sourceContext(spec) + "'" + spec.path + "' is not a folder, expected a folder of text files"};
    const std::string split = optionOr(spec, "split", "file");
    if (split != "file" && split != "blank-line")
        return Error{sourceContext(spec) + "option 'split' = '" + split +
                     "' is not valid, expected file or blank-line"};
    std::string folderName = fs::path(spec.path).filename().string();
    if (folderName.empty()) folderName = fs::path(spec.path).parent_path().filename().string();
    const std::string domain = optionOr(spec, "domain", folderName);

    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(spec.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_regular_file() && !name.empty() && name[0] != '.') files.push_back(it->path().string());
    }
    if (ec) return Error{sourceContext(spec) + "cannot list folder '" + spec.path + "': " + ec.message()};
    std::sort(files.begin(), files.end());

    TextCorpus corpus;
    for (std::size_t f = 0; f < files.size(); ++f) {
        const std::string& file = files[f];
        if (corpus.documents.size() >= *limit) break;
        loadStep(spec, control, f, files.size());
        auto bytes = readFileMaybeGzip(file);
        if (!bytes) return Error{sourceContext(spec) + bytes.error().message};
        std::vector<std::pair<std::string, std::string>> pieces;  // (text, where)
        if (split == "file") {
            pieces.emplace_back(std::move(bytes).value(), "file '" + file + "'");
        } else {
            // Blocks separated by one or more blank lines; each keeps its starting line in errors.
            std::string block;
            std::size_t lineNo = 0, blockLine = 1;
            const std::string& s = *bytes;
            for (std::size_t i = 0; i <= s.size();) {
                const std::size_t eol = std::min(s.find('\n', i), s.size());
                std::string line = s.substr(i, eol - i);
                ++lineNo;
                const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
                if (!line.empty() && line.back() == '\r') line.pop_back();
                if (!blank) {
                    if (block.empty())
                        blockLine = lineNo;
                    else
                        block += '\n';
                    block += line;
                }
                if ((blank || eol == s.size()) && !block.empty()) {
                    pieces.emplace_back(std::move(block),
                                        "file '" + file + "', block at line " + std::to_string(blockLine));
                    block.clear();
                }
                i = eol + 1;
            }
        }
        for (auto& [text, where] : pieces) {
            if (corpus.documents.size() >= *limit) break;
            if (text.find_first_not_of(" \t\r\n") == std::string::npos) continue;
            auto checked = checkedUtf8(spec, std::move(text), where);
            if (!checked) return checked.error();
            corpus.documents.push_back({std::move(checked).value(), domain, ""});
        }
    }
    loadStep(spec, control, files.size(), files.size());
    if (corpus.documents.empty())
        return Error{sourceContext(spec) + "folder '" + spec.path + "' holds no documents (empty data set)"};
    return corpus;
}

}  // namespace dpmix::data
