#include "app/cli/terminal_safe.h"

#include <cstdio>
#include <iostream>
#include <streambuf>

namespace dpmix::cli {
namespace {

// Forwards to `target`, writing C0 control characters (except \n and \t) and DEL as "\xNN".
class EscapingStreambuf : public std::streambuf {
public:
    explicit EscapingStreambuf(std::streambuf* target) : target_(target) {}

protected:
    int_type overflow(int_type ch) override {
        if (traits_type::eq_int_type(ch, traits_type::eof())) return sync() == 0 ? traits_type::not_eof(ch) : ch;
        const auto c = static_cast<unsigned char>(traits_type::to_char_type(ch));
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            char escaped[5];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            return target_->sputn(escaped, 4) == 4 ? ch : traits_type::eof();
        }
        return traits_type::eq_int_type(target_->sputc(static_cast<char>(c)), traits_type::eof()) ? traits_type::eof()
                                                                                                  : ch;
    }
    int sync() override { return target_->pubsync(); }

private:
    std::streambuf* target_;
};

}  // namespace

void installTerminalSafeOutput() {
    static EscapingStreambuf out(std::cout.rdbuf());
    static EscapingStreambuf err(std::cerr.rdbuf());
    std::cout.rdbuf(&out);
    std::cerr.rdbuf(&err);
}

}  // namespace dpmix::cli
