#pragma once
// One RFC 5322 message: the sender address from From: and the body (or the whole message).
#include <string>
#include <string_view>
#include <vector>

namespace dpmix::data {

struct EmailMessage {
    std::string sender;  // lower-cased address from the From: header ("" if none)
    std::string text;    // the body, or the full message when headers are kept
};

/// Splits headers from body at the first empty line; unfolds headers to find From:.
EmailMessage parseEmail(std::string_view raw, bool keepHeaders);

/// The address in a From: value: "Name <a@b.c>" -> "a@b.c", "a@b.c (Name)" -> "a@b.c".
std::string senderAddress(std::string_view fromValue);

/// Splits an mbox file into raw messages: a message starts at a line beginning with "From "
/// (at the file start or after a line break); ">From " quoting in bodies is undone.
std::vector<std::string> splitMbox(std::string_view mbox);

}  // namespace dpmix::data
