// Content hashes over the decoded examples. The byte encoding is fixed (little-endian lengths,
// length-prefixed strings, pixels quantised to u8) so the hash does not depend on the machine,
// on float formatting, or on how the files were compressed.
#include "engine/data/sha256.h"
#include "engine/data/source_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dpmix::data {
namespace {

void putU64(Sha256& h, std::uint64_t v) {
    std::uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
    h.update(b, 8);
}

void putString(Sha256& h, const std::string& s) {
    putU64(h, s.size());
    h.update(s);
}

}  // namespace

std::string contentHash(const ImageDataset& d) {
    Sha256 h;
    h.update(std::string_view("dpmix-images-v1"));
    const std::size_t n = d.size(), l = d.numLabels();
    for (std::uint64_t v : {std::uint64_t(n), std::uint64_t(d.channels), std::uint64_t(d.height),
                            std::uint64_t(d.width), std::uint64_t(l)})
        putU64(h, v);
    for (const auto& name : d.labelNames) putString(h, name);
    std::vector<std::uint8_t> buffer(d.imageSize());
    for (std::size_t i = 0; i < n; ++i) {
        const float* px = d.pixels.data() + i * buffer.size();
        for (std::size_t k = 0; k < buffer.size(); ++k)
            // double(x)·255 + 0.5 is exact, so the floor is round-half-up on every machine.
            buffer[k] = static_cast<std::uint8_t>(double(std::clamp(px[k], 0.0f, 1.0f)) * 255.0 + 0.5);
        h.update(buffer.data(), buffer.size());
    }
    // Labels as 0/1/2 (2 = unknown), so an empty mask and an all-known mask hash the same.
    std::vector<std::uint8_t> labels(n * l);
    for (std::size_t k = 0; k < n * l; ++k)
        labels[k] = (!d.labelMask.empty() && !d.labelMask[k]) ? 2 : (d.labels[k] > 0.5f ? 1 : 0);
    h.update(labels.data(), labels.size());
    putU64(h, d.users.size());
    for (const auto& u : d.users) putString(h, u);
    return h.hexDigest();
}

std::string contentHash(const TextCorpus& corpus) {
    Sha256 h;
    h.update(std::string_view("dpmix-text-v1"));
    putU64(h, corpus.documents.size());
    for (const auto& doc : corpus.documents) {
        putString(h, doc.text);
        putString(h, doc.domain);
        putString(h, doc.user);
    }
    return h.hexDigest();
}

}  // namespace dpmix::data
