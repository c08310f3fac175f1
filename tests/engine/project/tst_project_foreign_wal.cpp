// A -wal beside a project that is not the project's own (docs/PROJECT_FILE.md, "Read-only open"): SQLite replays any
// -wal it finds into the file on a read-write open, and it has no way to tell whose it is — a
// -wal of another database once turned a 122,880-byte project into an 8,192-byte one, every run
// and ledger gone. Now every open looks first: a foreign -wal is refused with what to do and the
// file's bytes stay identical, read-only or not; the project's own leftover -wal (a process
// killed while writing) is still read, and replayed by a read-write open; a -wal in use by a live
// connection is that connection's.
#include "engine/project/project_file.h"
#include "project_fixture.h"

#include "tests/support/unit_test.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

using namespace dpmix;
using namespace dpmix::project;
using namespace dpmix::project::testing;
using dpmix::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> filesIn(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// A closed project with one run; returns its id.
long long makeProject(const fs::path& file) {
    fs::create_directories(file.parent_path());
    auto created = ProjectFile::create(file, tinySpec(), tinyFacts());
    if (!created) throw std::runtime_error("create: " + created.error().message);
    ProjectFile p = std::move(created).value();
    return p.addRun({"dp-mixmin", "ac", 1.0, 0, "{}"}).value();
}

// Copies the -wal of a database while a connection still holds it open (its commits are in the
// -wal only), as a copied or restored folder would hold it.
struct OpenWriter {
    sqlite3* db = nullptr;
    explicit OpenWriter(const std::string& file) {
        if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
            throw std::runtime_error("open " + file);
    }
    void exec(const std::string& sql) {
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("SQL failed: ") + sqlite3_errmsg(db));
    }
    ~OpenWriter() { sqlite3_close(db); }
};

}  // namespace

class TestProjectForeignWal : public QObject {
    Q_OBJECT
    TempDir dir_;

    fs::path folder(const std::string& name) const { return fs::path(dir_.path()) / name; }

    // Plants the -wal of `other` (with pending commits) beside `file`.
    void plantWalOf(const fs::path& other, const fs::path& file, bool otherIsProject) {
        if (otherIsProject) {
            auto opened = ProjectFile::open(other);
            QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
            ProjectFile writer = std::move(opened).value();
            QVERIFY(writer.addRun({"uniform", "ac", 1.0, 7, "{}"}).ok());
            QVERIFY(fs::file_size(other.string() + "-wal") > 0);
            fs::copy_file(other.string() + "-wal", file.string() + "-wal", fs::copy_options::overwrite_existing);
        } else {
            OpenWriter writer(other.string());
            writer.exec(
                "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(x);"
                "INSERT INTO t VALUES(zeroblob(3000))");
            fs::copy_file(other.string() + "-wal", file.string() + "-wal", fs::copy_options::overwrite_existing);
        }
    }

    void expectRefusedUnchanged(const fs::path& file, OpenMode mode) {
        const std::string before = readBytes(file.string());
        const auto listed = filesIn(file.parent_path());
        auto p = ProjectFile::open(file, mode);
        QVERIFY(!p.ok());
        const std::string& m = p.error().message;
        QVERIFY2(m.find("-wal does not belong to study.dpmix") != std::string::npos, m.c_str());
        QVERIFY2(m.find("Move study.dpmix-wal") != std::string::npos, m.c_str());  // what to do
        QVERIFY2(m.find("study.dpmix is unchanged") != std::string::npos, m.c_str());
        QCOMPARE(readBytes(file.string()), before);
        QCOMPARE(filesIn(file.parent_path()), listed);  // no -shm made, nothing replayed or removed
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void aForeignDatabasesWalIsRefusedByEveryOpen() {
        const fs::path file = folder("plain") / "study.dpmix";
        makeProject(file);
        plantWalOf(folder("plain") / "other.db", file, false);
        fs::remove(folder("plain") / "other.db");
        fs::remove(folder("plain") / "other.db-wal");
        fs::remove(folder("plain") / "other.db-shm");
        for (OpenMode mode : {OpenMode::ReadOnly, OpenMode::Auto, OpenMode::ReadWrite})
            expectRefusedUnchanged(file, mode);
        // Moved away, as the message says: the project opens with everything it held.
        fs::rename(file.string() + "-wal", folder("plain") / "stray-wal");
        auto p = ProjectFile::open(file);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        QCOMPARE(p->runs()->size(), std::size_t(1));
    }

    void anotherProjectsWalIsRefused() {
        const fs::path file = folder("two") / "study.dpmix";
        const fs::path other = folder("two-other") / "other.dpmix";
        makeProject(file);
        makeProject(other);
        plantWalOf(other, file, true);
        for (OpenMode mode : {OpenMode::ReadOnly, OpenMode::Auto}) expectRefusedUnchanged(file, mode);
    }

    // A copy taken while dpmix was writing (or a process killed with SIGKILL): the -wal holds the
    // newest commits and is the file's own. Read-only, they are read (from a private copy: the
    // folder gets no -shm); read-write, SQLite replays them.
    void theProjectsOwnLeftoverWalIsReadAndReplayed() {
        const fs::path source = folder("own-src") / "study.dpmix";
        makeProject(source);
        auto opened = ProjectFile::open(source);
        QVERIFY(opened.ok());
        ProjectFile writer = std::move(opened).value();
        const long long late = writer.addRun({"uniform", "ac", 1.0, 1, "{}"}).value();  // in the -wal only
        const fs::path copy = folder("own-copy") / "study.dpmix";
        fs::create_directories(copy.parent_path());
        fs::copy_file(source, copy);
        fs::copy_file(source.string() + "-wal", copy.string() + "-wal");
        const std::string before = readBytes(copy.string());
        {
            auto p = ProjectFile::open(copy, OpenMode::ReadOnly);
            QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
            QCOMPARE(p->runs()->size(), std::size_t(2));
            QVERIFY(p->run(late).ok());
        }
        QCOMPARE(readBytes(copy.string()), before);
        QCOMPARE(filesIn(copy.parent_path()), (std::vector<std::string>{"study.dpmix", "study.dpmix-wal"}));
        auto p = ProjectFile::open(copy, OpenMode::ReadWrite);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        QCOMPARE(p->runs()->size(), std::size_t(2));
    }

    // A -wal a connection is using now is read as SQLite reads it (here the connection is this
    // process's own; another process's is found by the lock it holds on the -shm).
    void aLiveWalIsRead() {
        const fs::path file = folder("live") / "study.dpmix";
        makeProject(file);
        auto opened = ProjectFile::open(file);
        QVERIFY(opened.ok());
        ProjectFile writer = std::move(opened).value();
        const long long late = writer.addRun({"uniform", "ac", 1.0, 2, "{}"}).value();
        auto reader = ProjectFile::open(file, OpenMode::ReadOnly);
        QVERIFY2(reader.ok(), reader.ok() ? "" : reader.error().message.c_str());
        QVERIFY(reader->run(late).ok());
    }

    // Side files that SQLite would block on (a FIFO) or write through (a link) are refused.
    void sideFilesThatAreNotPlainFilesAreRefused() {
        const fs::path file = folder("odd") / "study.dpmix";
        makeProject(file);
        QCOMPARE(::mkfifo((file.string() + "-wal").c_str(), 0600), 0);
        const std::string before = readBytes(file.string());
        auto p = ProjectFile::open(file, OpenMode::ReadOnly);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("is not a regular file") != std::string::npos, p.error().message.c_str());
        fs::remove(file.string() + "-wal");
        fs::create_symlink(folder("odd") / "victim", file.string() + "-shm");
        auto q = ProjectFile::open(file);
        QVERIFY(!q.ok());
        QVERIFY2(q.error().message.find("a symbolic link") != std::string::npos, q.error().message.c_str());
        QCOMPARE(readBytes(file.string()), before);
        QVERIFY(!fs::exists(folder("odd") / "victim"));
    }

    // The project file itself as a FIFO, or behind a link to one, or a loop of links: an error.
    void aProjectThatIsNotAFileIsRefused() {
        const fs::path fifo = folder("fifo-project") / "study.dpmix";
        fs::create_directories(fifo.parent_path());
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        auto p = ProjectFile::open(fifo, OpenMode::ReadOnly);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("FIFO") != std::string::npos, p.error().message.c_str());
        const fs::path link = folder("fifo-project") / "link.dpmix";
        fs::create_symlink(fifo, link);
        auto q = ProjectFile::open(link);
        QVERIFY(!q.ok());
        QVERIFY2(q.error().message.find("FIFO") != std::string::npos, q.error().message.c_str());
        const fs::path a = folder("fifo-project") / "a.dpmix", b = folder("fifo-project") / "b.dpmix";
        fs::create_symlink(b, a);
        fs::create_symlink(a, b);
        auto loop = ProjectFile::open(a);
        QVERIFY(!loop.ok());
        QVERIFY2(loop.error().message.find("a loop of symbolic links") != std::string::npos,
                 loop.error().message.c_str());
        auto tooLong = ProjectFile::open(fs::path(dir_.path()) / (std::string(300, 'x') + ".dpmix"));
        QVERIFY(!tooLong.ok());
        QVERIFY2(tooLong.error().message.find("the name is too long") != std::string::npos,
                 tooLong.error().message.c_str());
    }

    // A model file of a received project replaced by a FIFO or linked to /dev/zero: refused, not
    // read forever.
    void aModelFileThatIsNotAFileIsRefused() {
        const fs::path file = folder("models") / "study.dpmix";
        const long long run = makeProject(file);
        auto opened = ProjectFile::open(file);
        QVERIFY(opened.ok());
        ProjectFile p = std::move(opened).value();
        auto stored = p.storeModel(run, "finetuned", std::string(4096, 'w'));
        QVERIFY2(stored.ok(), stored.ok() ? "" : stored.error().message.c_str());
        const fs::path model = p.modelsDir() / stored->fileName;
        fs::remove(model);
        fs::create_symlink("/dev/zero", model);
        auto zero = p.loadModel(*stored);
        QVERIFY(!zero.ok());
        QVERIFY2(zero.error().message.find("a device") != std::string::npos, zero.error().message.c_str());
        fs::remove(model);
        QCOMPARE(::mkfifo(model.c_str(), 0600), 0);
        auto fifo = p.loadModel(*stored);
        QVERIFY(!fifo.ok());
        QVERIFY2(fifo.error().message.find("FIFO") != std::string::npos, fifo.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestProjectForeignWal)
#include "tst_project_foreign_wal.moc"
