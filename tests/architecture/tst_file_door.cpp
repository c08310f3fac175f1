// One door to the file system (engine/core/file_door.h; docs/RELIABILITY.md): no engine or program code
// calls a throwing std::filesystem overload (a path too long or a loop of links then ends the
// program in std::filesystem_error), and no code opens files with fopen, open or std::ifstream
// (which block on a FIFO and read /dev/zero without end) except the door itself and the few
// files listed below with the reason they may. Checked on the source tree, like tst_layering.
#include "tests/support/unit_test.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

// Every pattern is a plain (escaped) string: moc's parser does not take raw string literals.

namespace {

const fs::path kRoot = dpmix::test_support::sourceDir();

// Files that may open files themselves, and why. Keep it short: a new reader of a path that a
// user or a received file names goes through the door.
const std::map<std::string, std::string> kMayOpenFiles = {
    {"engine/core/file_door.cpp", "the door itself"},
    {"engine/project/wal_check.cpp", "probes the -shm's lock with O_NOFOLLOW | O_NONBLOCK, never reads it"},
    {"engine/project/process_identity.cpp", "reads /proc (the kernel's files, not a user's path)"},
    {"engine/project/file_publishing.cpp", "opens a folder (O_DIRECTORY) to lock it"},
    {"engine/project/project_file_support.cpp", "creates a new temporary file (O_CREAT) to write a model"},
    {"engine/executor/cluster_process.cpp", "/dev/null for a child's stdin, and files of its own job folder"},
    {"engine/executor/cluster_job_files.cpp", "reads the job folder's own records (submissions, cancellations)"},
    {"engine/executor/run_units.cpp", "hashes the scratch copy of a project it made itself"},
    {"engine/executor/adamix_units.cpp", "reads a unit result file of its own job folder"},
    {"engine/text_tokens/text_downstream_tokens.cpp", "reads the token cache this program wrote"},
    {"engine/text/tokenizer.cpp", "reads the tokenizer model this program wrote"},
};

// std::filesystem functions that have a throwing overload and one taking a std::error_code.
const std::set<std::string> kThrowing = {"absolute",
                                         "canonical",
                                         "weakly_canonical",
                                         "relative",
                                         "proximate",
                                         "copy",
                                         "copy_file",
                                         "copy_symlink",
                                         "create_directory",
                                         "create_directories",
                                         "create_hard_link",
                                         "create_symlink",
                                         "create_directory_symlink",
                                         "current_path",
                                         "equivalent",
                                         "exists",
                                         "file_size",
                                         "hard_link_count",
                                         "is_block_file",
                                         "is_character_file",
                                         "is_directory",
                                         "is_empty",
                                         "is_fifo",
                                         "is_other",
                                         "is_regular_file",
                                         "is_socket",
                                         "is_symlink",
                                         "last_write_time",
                                         "permissions",
                                         "read_symlink",
                                         "remove",
                                         "remove_all",
                                         "rename",
                                         "resize_file",
                                         "space",
                                         "status",
                                         "symlink_status",
                                         "temp_directory_path",
                                         "directory_iterator",
                                         "recursive_directory_iterator"};

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<fs::path> sourcesUnder(const std::string& folder) {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / folder)) {
        const auto ext = e.path().extension();
        if (e.is_regular_file() && (ext == ".h" || ext == ".cpp")) out.push_back(e.path());
    }
    return out;
}

// The text with comments and string literals blanked (same length), so that neither a comment
// nor a message that names a function counts as a call.
std::string codeOnly(const std::string& text) {
    std::string out = text;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out.compare(i, 2, "//") == 0) {
            while (i < out.size() && out[i] != '\n') out[i++] = ' ';
        } else if (out.compare(i, 2, "/*") == 0) {
            while (i < out.size() && out.compare(i, 2, "*/") != 0) out[i] = out[i] == '\n' ? '\n' : ' ', ++i;
            if (i + 1 < out.size()) out[i] = out[i + 1] = ' ', ++i;
        } else if (out[i] == '"' || out[i] == '\'') {
            const char quote = out[i++];
            while (i < out.size() && out[i] != quote) {
                if (out[i] == '\\' && i + 1 < out.size()) out[i++] = ' ';
                if (out[i] != '\n') out[i] = ' ';
                ++i;
            }
        }
    }
    return out;
}

// The top-level arguments of the call whose '(' is at `open`.
std::vector<std::string> argumentsAt(const std::string& code, std::size_t open) {
    std::vector<std::string> args;
    std::string current;
    int depth = 0;
    for (std::size_t i = open; i < code.size(); ++i) {
        const char c = code[i];
        if (c == '(' || c == '[' || c == '{') {
            if (depth++ > 0) current += c;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) break;
            current += c;
        } else if (c == ',' && depth == 1) {
            args.push_back(current);
            current.clear();
        } else if (depth > 0) {
            current += c;
        }
    }
    const bool blank = current.find_first_not_of(" \t\n") == std::string::npos;
    if (!blank || !args.empty()) args.push_back(current);
    return args;
}

std::string trimmed(const std::string& s) {
    const auto a = s.find_first_not_of(" \t\n");
    if (a == std::string::npos) return {};
    return s.substr(a, s.find_last_not_of(" \t\n") - a + 1);
}

// "line N: text" for each call of a throwing std::filesystem overload in `text`: a call whose
// last argument is not a std::error_code declared in the same file (or `ec`), unless its only
// argument is a file_status (exists(st), exists(fs::symlink_status(p, ec))) or it has none (the
// end iterator).
std::vector<std::string> throwingFilesystemCalls(const std::string& text) {
    const std::string code = codeOnly(text);
    std::set<std::string> errorCodes{"ec"}, statuses;
    const std::regex declaredCode("std::error_code\\s+([A-Za-z_][A-Za-z0-9_]*)");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), declaredCode); it != std::sregex_iterator(); ++it)
        errorCodes.insert((*it)[1]);
    const std::regex declaredStatus("file_status\\s+([A-Za-z_][A-Za-z0-9_]*)");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), declaredStatus); it != std::sregex_iterator(); ++it)
        statuses.insert((*it)[1]);
    std::vector<std::string> hits;
    const std::regex call("(?:std::filesystem|\\bfs)::([a-z_]+)\\s*\\(");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        if (!kThrowing.count(name)) continue;
        const std::size_t open = static_cast<std::size_t>(it->position(0) + it->length(0) - 1);
        const auto args = argumentsAt(code, open);
        if (args.empty()) continue;  // fs::directory_iterator(): the end iterator
        const std::string last = trimmed(args.back());
        if (errorCodes.count(last)) continue;
        if (args.size() == 1 && (statuses.count(last) || last.find("status(") != std::string::npos)) continue;
        const auto line = std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(open), '\n') + 1;
        const auto begin = text.rfind('\n', open) + 1;
        hits.push_back("line " + std::to_string(line) + ": " +
                       trimmed(text.substr(begin, text.find('\n', open) - begin)));
    }
    return hits;
}

// "line N: text" for each place that opens a file itself.
std::vector<std::string> directOpens(const std::string& text) {
    const std::string code = codeOnly(text);
    // ::open( not preceded by a name: ProjectFile::open( is not a file opened here.
    const std::regex opener("\\bstd::(i?fstream)\\b|\\bfopen\\s*\\(|(^|[^A-Za-z0-9_])::open\\s*\\(|\\bopenat\\s*\\(");
    std::vector<std::string> hits;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), opener); it != std::sregex_iterator(); ++it) {
        const auto at = static_cast<std::size_t>(it->position(0));
        const auto line = std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
        const auto begin = text.rfind('\n', at) + 1;
        hits.push_back("line " + std::to_string(line) + ": " +
                       trimmed(text.substr(begin, text.find('\n', at) - begin)));
    }
    return hits;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += "\n  " + s;
    return out;
}

}  // namespace

class TestFileDoor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noThrowingFilesystemCallOutsideTheDoor() {
        std::vector<std::string> hits;
        for (const char* folder : {"engine", "app"})
            for (const auto& file : sourcesUnder(folder)) {
                const std::string rel = fs::relative(file, kRoot).string();
                if (rel == "engine/core/file_door.cpp") continue;
                for (const auto& h : throwingFilesystemCalls(readAll(file))) hits.push_back(rel + ": " + h);
            }
        QVERIFY2(hits.empty(), ("std::filesystem calls without an error code (use engine/core/file_door.h, or pass "
                                "a std::error_code):" +
                                joined(hits))
                                   .c_str());
    }

    void noDirectOpensOutsideTheDoor() {
        std::vector<std::string> hits;
        for (const char* folder : {"engine", "app"})
            for (const auto& file : sourcesUnder(folder)) {
                const std::string rel = fs::relative(file, kRoot).string();
                if (kMayOpenFiles.count(rel)) continue;
                for (const auto& h : directOpens(readAll(file))) hits.push_back(rel + ": " + h);
            }
        QVERIFY2(hits.empty(), ("files opened outside engine/core/file_door (read through files::readRegularFile, or "
                                "add the file with its reason to kMayOpenFiles):" +
                                joined(hits))
                                   .c_str());
    }

    void theAllowListNamesExistingFiles() {
        for (const auto& [file, why] : kMayOpenFiles) QVERIFY2(fs::exists(kRoot / file), (file + ": " + why).c_str());
    }

    void theChecksDetectWhatTheyLookFor() {
        QCOMPARE(throwingFilesystemCalls("if (fs::exists(p)) x();").size(), std::size_t(1));
        QCOMPARE(throwingFilesystemCalls("for (auto& e : std::filesystem::directory_iterator(dir)) {}").size(),
                 std::size_t(1));
        QCOMPARE(throwingFilesystemCalls("fs::rename(a, b);").size(), std::size_t(1));
        QCOMPARE(throwingFilesystemCalls("std::error_code why; fs::rename(a, b, why);").size(), std::size_t(0));
        QCOMPARE(throwingFilesystemCalls("fs::remove(f(a, b), ec);").size(), std::size_t(0));
        QCOMPARE(throwingFilesystemCalls("if (fs::exists(fs::symlink_status(p, ec))) {}").size(), std::size_t(0));
        QCOMPARE(throwingFilesystemCalls("it != fs::recursive_directory_iterator();").size(), std::size_t(0));
        QCOMPARE(throwingFilesystemCalls("// fs::exists(p) in a comment\nx(\"fs::exists(p)\");").size(),
                 std::size_t(0));
        QCOMPARE(throwingFilesystemCalls("fs::path p = fs::path(a) / b;").size(), std::size_t(0));
        QCOMPARE(directOpens("std::ifstream in(path);").size(), std::size_t(1));
        QCOMPARE(directOpens("FILE* f = fopen(p, \"r\");").size(), std::size_t(1));
        QCOMPARE(directOpens("const int fd = ::open(p, O_RDONLY);").size(), std::size_t(1));
        QCOMPARE(directOpens("std::ofstream out(temp);").size(), std::size_t(0));  // writes a new file
        QCOMPARE(directOpens("auto p = ProjectFile::open(path);").size(), std::size_t(0));
    }
};

QTEST_APPLESS_MAIN(TestFileDoor)
#include "tst_file_door.moc"
