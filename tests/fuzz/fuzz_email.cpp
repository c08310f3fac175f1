// The e-mail readers: one message (headers, folding, MIME parts, encodings), an mbox split
// into messages, the sender address of a From: value, and the mbox loader on the same bytes.
#include "engine/data/email_message.h"
#include "engine/data/text_loaders.h"
#include "fuzz_support.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view raw(reinterpret_cast<const char*>(data), size);
    const auto message = dpmix::data::parseEmail(raw, (size & 1) != 0);
    (void)message;
    for (const auto& m : dpmix::data::splitMbox(raw)) (void)dpmix::data::parseEmail(m, false);
    (void)dpmix::data::senderAddress(raw.substr(0, 512));
    const std::string path = dpmix::fuzz::writeScratch(data, size, ".mbox");
    dpmix::data::SourceSpec spec{"fuzz", "mbox", path, {{"encoding_errors", "replace"}}};
    (void)dpmix::data::loadMboxSource(spec);
    return 0;
}
