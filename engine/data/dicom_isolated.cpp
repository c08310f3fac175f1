// GDCM's reading in a child process (isolated_call.h): the file's result crosses the pipe as
// bytes — frames as floats, header values, the tags present — in this process's own layout
// (parent and child are the same program).
#include "engine/data/dicom_file.h"
#include "engine/data/file_bytes.h"
#include "engine/data/isolated_call.h"

#include <cstring>

namespace dpmix::data {
namespace {

constexpr int kSecondsPerDicomDir = 120;

template <typename T>
void putRaw(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void putText(std::string& out, const std::string& text) {
    putRaw(out, static_cast<std::uint64_t>(text.size()));
    out += text;
}

// Reads back what put* wrote; `ok` turns false on a short or inconsistent message.
struct Reader {
    const std::string& bytes;
    std::size_t at = 0;
    bool ok = true;
    template <typename T>
    T raw() {
        T value{};
        if (at + sizeof value > bytes.size()) {
            ok = false;
            return value;
        }
        std::memcpy(&value, bytes.data() + at, sizeof value);
        at += sizeof value;
        return value;
    }
    std::string text() {
        const auto size = raw<std::uint64_t>();
        if (!ok || size > bytes.size() - at) {
            ok = false;
            return {};
        }
        std::string out = bytes.substr(at, size);
        at += size;
        return out;
    }
};

std::string encode(const DicomInstance& instance) {
    std::string out;
    putRaw(out, static_cast<std::uint64_t>(instance.frames.size()));
    for (const auto& frame : instance.frames) {
        putRaw(out, frame.channels);
        putRaw(out, frame.height);
        putRaw(out, frame.width);
        putText(out,
                std::string(reinterpret_cast<const char*>(frame.pixels.data()), frame.pixels.size() * sizeof(float)));
    }
    putRaw(out, static_cast<std::uint64_t>(instance.values.size()));
    for (const auto& [tag, value] : instance.values) {
        putRaw(out, tag);
        putText(out, value);
    }
    putRaw(out, static_cast<std::uint64_t>(instance.present.size()));
    for (const auto& tag : instance.present) putRaw(out, tag);
    return out;
}

Result<DicomInstance> decode(const std::string& bytes) {
    Reader in{bytes};
    DicomInstance instance;
    for (auto n = in.raw<std::uint64_t>(); in.ok && n > 0; --n) {
        DecodedImage frame;
        frame.channels = in.raw<int>();
        frame.height = in.raw<int>();
        frame.width = in.raw<int>();
        const std::string pixels = in.text();
        frame.pixels.resize(pixels.size() / sizeof(float));
        std::memcpy(frame.pixels.data(), pixels.data(), frame.pixels.size() * sizeof(float));
        instance.frames.push_back(std::move(frame));
    }
    for (auto n = in.raw<std::uint64_t>(); in.ok && n > 0; --n) {
        const auto tag = in.raw<DicomTag>();
        instance.values[tag] = in.text();
    }
    for (auto n = in.raw<std::uint64_t>(); in.ok && n > 0; --n) instance.present.push_back(in.raw<DicomTag>());
    if (!in.ok || in.at != bytes.size()) return Error{"the reader process's answer is damaged"};
    return instance;
}

}  // namespace

Result<DicomInstance> readDicomBytes(const std::string& bytes, const std::vector<DicomTag>& tags,
                                     const DicomReadRules& rules, bool withPixels) {
    auto answer = runIsolated(
        [&]() -> Result<std::string> {
            auto instance = readDicomBytesInProcess(bytes, tags, rules, withPixels);
            if (!instance) return instance.error();
            return encode(*instance);
        },
        rules.secondsPerFile);
    if (!answer) return answer.error();
    return decode(*answer);
}

Status readDicomFiles(const std::vector<std::string>& paths, const std::vector<DicomTag>& tags,
                      const DicomReadRules& rules,
                      const std::function<bool(std::size_t, Result<DicomInstance>)>& take) {
    return runIsolatedEach(
        paths.size(),
        [&](std::size_t i) -> Result<std::string> {
            auto bytes = readFileRaw(paths[i]);
            if (!bytes) return bytes.error();
            auto instance = readDicomBytesInProcess(*bytes, tags, rules, true);
            if (!instance) return instance.error();
            return encode(*instance);
        },
        rules.secondsPerFile,
        [&](std::size_t i, Result<std::string> answer) {
            return take(i, answer ? decode(*answer) : Result<DicomInstance>(answer.error()));
        });
}

Result<std::vector<std::string>> dicomDirFiles(const std::string& bytes) {
    auto answer = runIsolated(
        [&]() -> Result<std::string> {
            auto files = dicomDirFilesInProcess(bytes);
            if (!files) return files.error();
            std::string out;
            for (const auto& f : *files) putText(out, f);
            return out;
        },
        kSecondsPerDicomDir);
    if (!answer) return answer.error();
    Reader in{*answer};
    std::vector<std::string> files;
    while (in.ok && in.at < answer->size()) files.push_back(in.text());
    if (!in.ok) return Error{"the reader process's answer is damaged"};
    return files;
}

}  // namespace dpmix::data
