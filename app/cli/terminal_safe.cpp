#include "app/cli/terminal_safe.h"

#include <cstdio>
#include <iostream>
#include <streambuf>

namespace dpmix::cli {
namespace {

// The code points that reorder or hide text: C1 controls, and the bidirectional formatting
// characters (ALM U+061C, LRM/RLM U+200E/F, LRE..RLO U+202A–E, LRI..PDI U+2066–9).
bool dangerousCodePoint(unsigned cp) {
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string escapedByte(unsigned char c) {
    char text[8];
    std::snprintf(text, sizeof text, "\\x%02x", c);
    return text;
}

std::string escapedCodePoint(unsigned cp) {
    char text[12];
    std::snprintf(text, sizeof text, "\\u%04x", cp);
    return text;
}

// Length of the UTF-8 sequence starting with `lead` (0: not a lead byte) and its first bits.
int sequenceLength(unsigned char lead, unsigned& cp) {
    if (lead >= 0xc2 && lead <= 0xdf) {
        cp = lead & 0x1f;
        return 2;
    }
    if (lead >= 0xe0 && lead <= 0xef) {
        cp = lead & 0x0f;
        return 3;
    }
    if (lead >= 0xf0 && lead <= 0xf4) {
        cp = lead & 0x07;
        return 4;
    }
    return 0;
}

// Escapes `text` (a whole string, or what a stream holds so far); with `keepLines`, newline and
// tab pass. Returns how many bytes were consumed: an incomplete UTF-8 sequence at the end is
// left for the next call when `final` is false.
std::size_t escapeInto(std::string& out, const std::string& text, bool keepLines, bool final) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c == '\n' && keepLines)
                out += '\n';
            else if (c == '\t' && keepLines)
                out += '\t';
            else if (c == '\n')
                out += "\\n";
            else if (c == '\r')
                out += "\\r";
            else if (c == '\t')
                out += "\\t";
            else if (c < 0x20 || c == 0x7f)
                out += escapedByte(c);
            else
                out += static_cast<char>(c);
            ++i;
            continue;
        }
        unsigned cp = 0;
        const int n = sequenceLength(c, cp);
        if (n == 0) {  // a stray continuation byte or an invalid lead
            out += escapedByte(c);
            ++i;
            continue;
        }
        if (i + static_cast<std::size_t>(n) > text.size()) {
            if (!final) return i;  // wait for the rest of the sequence
            for (; i < text.size(); ++i) out += escapedByte(static_cast<unsigned char>(text[i]));
            return i;
        }
        bool valid = true;
        for (int k = 1; k < n; ++k) {
            const auto cc = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
            if ((cc & 0xc0) != 0x80) valid = false;
            cp = (cp << 6) | (cc & 0x3f);
        }
        if (!valid) {
            out += escapedByte(c);
            ++i;
            continue;
        }
        if (dangerousCodePoint(cp))
            out += escapedCodePoint(cp);
        else
            out.append(text, i, static_cast<std::size_t>(n));
        i += static_cast<std::size_t>(n);
    }
    return i;
}

// Forwards to `target`, escaping as above (newline and tab kept). Holds back an incomplete UTF-8
// sequence until its last byte arrives, so a character split across writes is judged whole.
class EscapingStreambuf : public std::streambuf {
public:
    explicit EscapingStreambuf(std::streambuf* target) : target_(target) {}

protected:
    int_type overflow(int_type ch) override {
        if (traits_type::eq_int_type(ch, traits_type::eof())) return sync() == 0 ? traits_type::not_eof(ch) : ch;
        pending_ += traits_type::to_char_type(ch);
        return forward(false) ? ch : traits_type::eof();
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        pending_.append(s, static_cast<std::size_t>(n));
        return forward(false) ? n : 0;
    }
    int sync() override {
        if (!forward(true)) return -1;
        return target_->pubsync();
    }

private:
    bool forward(bool final) {
        std::string out;
        const std::size_t used = escapeInto(out, pending_, true, final);
        pending_.erase(0, used);
        return target_->sputn(out.data(), static_cast<std::streamsize>(out.size())) ==
               static_cast<std::streamsize>(out.size());
    }

    std::streambuf* target_;
    std::string pending_;
};

}  // namespace

std::string oneLine(const std::string& text) {
    std::string out;
    escapeInto(out, text, false, true);
    return out;
}

void installTerminalSafeOutput() {
    static EscapingStreambuf out(std::cout.rdbuf());
    static EscapingStreambuf err(std::cerr.rdbuf());
    std::cout.rdbuf(&out);
    std::cerr.rdbuf(&err);
}

}  // namespace dpmix::cli
