// The layering rules of docs/ARCHITECTURE.md, checked on the source tree itself: no Qt in the
// engine, no LibTorch in the widgets or the programs, and the engine modules include each other
// only along the dependencies the architecture table declares (engine/core is everyone's), so
// the module graph stays acyclic; the engine's tests include no Qt header either; the workbench's
// folders (app/workbench/*/) include each other without a cycle.
#include "tests/support/unit_test.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

// Every pattern is a plain (escaped) string: moc's parser does not take raw string literals.

namespace {

const fs::path kRoot = dpmix::test_support::sourceDir();

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

// "file: line" for every include matching `pattern` in the folder's sources.
std::vector<std::string> includesMatching(const std::string& folder, const std::regex& pattern) {
    std::vector<std::string> hits;
    for (const auto& file : sourcesUnder(folder)) {
        std::istringstream lines(readAll(file));
        std::string line;
        while (std::getline(lines, line))
            if (std::regex_search(line, pattern)) hits.push_back(fs::relative(file, kRoot).string() + ": " + line);
    }
    return hits;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += "\n  " + s;
    return out;
}

using Graph = std::map<std::string, std::set<std::string>>;

// engine/X → the engine modules its sources include.
Graph includeGraph() {
    Graph g;
    const std::regex include("#\\s*include\\s*\"engine/([a-z_]+)/");
    for (const auto& dir : fs::directory_iterator(kRoot / "engine")) {
        if (!dir.is_directory()) continue;
        const std::string module = dir.path().filename().string();
        auto& deps = g[module];
        for (const auto& file : sourcesUnder("engine/" + module)) {
            const std::string text = readAll(file);
            for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it)
                if ((*it)[1] != module) deps.insert((*it)[1]);
        }
    }
    return g;
}

// The architecture table's rows `engine/X/` → the engine modules named in its last column
// ("all of the above": every module of an earlier row).
Graph declaredGraph(const std::set<std::string>& modules) {
    Graph g;
    std::vector<std::string> above;
    const std::regex row("^\\| `engine/([a-z_]+)/` \\|.*\\|([^|]*)\\|\\s*$");
    std::istringstream lines(readAll(kRoot / "docs" / "ARCHITECTURE.md"));
    std::string line;
    while (std::getline(lines, line)) {
        std::smatch m;
        if (!std::regex_match(line, m, row)) continue;
        const std::string module = m[1];
        const std::string declared = m[2];
        auto& deps = g[module];
        if (declared.find("all of the above") != std::string::npos) deps.insert(above.begin(), above.end());
        for (const auto& name : modules)
            if (std::regex_search(declared, std::regex("(^|[^a-z_])" + name + "([^a-z_]|$)"))) deps.insert(name);
        above.push_back(module);
    }
    return g;
}

std::set<std::string> closure(const Graph& g, const std::string& from) {
    std::set<std::string> seen;
    std::function<void(const std::string&)> visit = [&](const std::string& m) {
        auto it = g.find(m);
        if (it == g.end()) return;
        for (const auto& d : it->second)
            if (seen.insert(d).second) visit(d);
    };
    visit(from);
    return seen;
}

// app/workbench/X → the app/workbench folders its sources include ("." stands for the files beside
// the main window); `via` keeps one including file for each arrow, for the failure message.
Graph workbenchFolderGraph(std::map<std::pair<std::string, std::string>, std::string>* via = nullptr) {
    Graph g;
    const std::regex include("#\\s*include\\s*\"app/workbench/(([a-z_]+)/)?[a-z_]+\\.h\"");
    const fs::path root = kRoot / "app" / "workbench";
    for (const auto& file : sourcesUnder("app/workbench")) {
        const fs::path relative = fs::relative(file, root);
        const bool inFolder = std::distance(relative.begin(), relative.end()) > 1;
        const std::string from = inFolder ? relative.begin()->string() : ".";
        auto& deps = g[from];
        const std::string text = readAll(file);
        for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
            const std::string to = (*it)[2].matched ? (*it)[2].str() : ".";
            if (to == from) continue;
            deps.insert(to);
            if (via) via->emplace(std::make_pair(from, to), fs::relative(file, kRoot).string());
        }
    }
    return g;
}

// Every arrow of `g` that lies on a cycle, as "from/ → to/ (file)".
std::vector<std::string> arrowsOnCycles(const Graph& g,
                                        const std::map<std::pair<std::string, std::string>, std::string>& via) {
    std::vector<std::string> out;
    for (const auto& [from, deps] : g)
        for (const auto& to : deps)
            if (to == from || closure(g, to).count(from)) {
                auto file = via.find({from, to});
                out.push_back(from + "/ → " + to + "/" + (file == via.end() ? "" : " (" + file->second + ")"));
            }
    return out;
}

const std::regex& qtInclude() {
    static const std::regex r("^\\s*#\\s*include\\s*[<\"](Q[A-Z]|Qt[A-Z])");
    return r;
}
const std::regex& torchInclude() {
    static const std::regex r("^\\s*#\\s*include\\s*[<\"](torch|ATen|c10|caffe2)/");
    return r;
}
const std::regex& engineInclude() {
    static const std::regex r("^\\s*#\\s*include\\s*\"engine/");
    return r;
}

}  // namespace

class TestLayering : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theEngineIncludesNoQt() {
        const auto hits = includesMatching("engine", qtInclude());
        QVERIFY2(hits.empty(), ("Qt in the engine:" + joined(hits)).c_str());
    }

    // The engine's tests build without Qt too (the headless build): their framework comes from
    // tests/support/unit_test.h, which is Qt Test or the Qt-free harness.
    void theEngineTestsIncludeNoQt() {
        auto hits = includesMatching("tests/engine", qtInclude());
        const auto architecture = includesMatching("tests/architecture", qtInclude());
        hits.insert(hits.end(), architecture.begin(), architecture.end());
        QVERIFY2(hits.empty(),
                 ("Qt headers in the engine's tests (use tests/support/unit_test.h):" + joined(hits)).c_str());
    }

    void widgetsAndProgramsIncludeNoTorch() {
        for (const char* folder : {"widgets", "app"}) {
            const auto hits = includesMatching(folder, torchInclude());
            QVERIFY2(hits.empty(), (std::string("LibTorch in ") + folder + ":" + joined(hits)).c_str());
        }
    }

    void widgetsIncludeNoEngine() {
        const auto hits = includesMatching("widgets", engineInclude());
        QVERIFY2(hits.empty(), ("engine headers in widgets/ (it takes plain values):" + joined(hits)).c_str());
    }

    void engineModulesIncludeOnlyWhatTheTableDeclares() {
        const Graph actual = includeGraph();
        std::set<std::string> modules;
        for (const auto& [m, deps] : actual) modules.insert(m);
        QVERIFY(modules.count("core") && modules.count("pipeline"));  // the walk found the tree
        const Graph declared = declaredGraph(modules);
        std::vector<std::string> problems;
        for (const auto& [m, deps] : actual) {
            if (!declared.count(m)) {
                problems.push_back("engine/" + m + "/ has no row in docs/ARCHITECTURE.md");
                continue;
            }
            const auto allowed = closure(declared, m);
            for (const auto& d : deps)
                if (d != "core" && !allowed.count(d))
                    problems.push_back("engine/" + m + "/ includes engine/" + d + "/, which its row does not declare");
        }
        QVERIFY2(problems.empty(), ("layering:" + joined(problems)).c_str());
    }

    void theEngineModuleGraphIsAcyclic() {
        const Graph g = includeGraph();
        std::vector<std::string> cycles;
        for (const auto& [m, deps] : g)
            if (closure(g, m).count(m)) cycles.push_back("engine/" + m + "/ reaches itself");
        QVERIFY2(cycles.empty(), ("include cycles:" + joined(cycles)).c_str());
    }

    // The workbench's folders include each other one way only (docs/ARCHITECTURE.md): help/ and
    // parameters/ at the bottom, then project/, runs/, views/; study/; the main window on top.
    void theWorkbenchFolderGraphIsAcyclic() {
        std::map<std::pair<std::string, std::string>, std::string> via;
        const Graph g = workbenchFolderGraph(&via);
        QVERIFY(g.count(".") && g.count("views") && g.count("project"));  // the walk found the tree
        const auto cycles = arrowsOnCycles(g, via);
        QVERIFY2(cycles.empty(), ("app/workbench folder cycles, arrows on them:" + joined(cycles)).c_str());
    }

    // The checks above must be able to fail: a made-up graph with a cycle and an undeclared edge.
    void theChecksDetectWhatTheyLookFor() {
        const Graph g{{"a", {"b"}}, {"b", {"a"}}, {"c", {}}};
        QVERIFY(closure(g, "a").count("a"));
        QVERIFY(!closure(g, "c").count("c"));
        QCOMPARE(arrowsOnCycles(g, {}).size(), std::size_t(2));  // a → b and b → a, not c
        QVERIFY(std::regex_search(std::string("#include <QString>"), qtInclude()));
        QVERIFY(!std::regex_search(std::string("#include <queue>"), qtInclude()));
        QVERIFY(std::regex_search(std::string("#include <torch/torch.h>"), torchInclude()));
    }
};

QTEST_APPLESS_MAIN(TestLayering)
#include "tst_layering.moc"
