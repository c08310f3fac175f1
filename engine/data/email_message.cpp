#include "engine/data/email_message.h"

#include <algorithm>
#include <cctype>

namespace dpmix::data {
namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

bool isAddressChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("._%+-=!#$&'*/?^`{|}~@").find(c) != std::string_view::npos;
}

// mbox writers put an empty line before each "From " line; it is not part of the message.
std::string withoutSeparatorLine(std::string message) {
    if (message.size() >= 4 && message.compare(message.size() - 4, 4, "\r\n\r\n") == 0)
        message.resize(message.size() - 2);
    else if (message.size() >= 2 && message.compare(message.size() - 2, 2, "\n\n") == 0)
        message.pop_back();
    return message;
}

}  // namespace

std::string senderAddress(std::string_view value) {
    const auto open = value.find('<');
    if (open != std::string_view::npos) {
        const auto close = value.find('>', open);
        if (close != std::string_view::npos) {
            std::string inner(value.substr(open + 1, close - open - 1));
            if (inner.find('@') != std::string::npos) return lower(inner);
        }
    }
    const auto at = value.find('@');
    if (at == std::string_view::npos) return {};
    std::size_t begin = at, end = at + 1;
    while (begin > 0 && isAddressChar(value[begin - 1]) && value[begin - 1] != '@') --begin;
    while (end < value.size() && isAddressChar(value[end]) && value[end] != '@') ++end;
    return lower(std::string(value.substr(begin, end - begin)));
}

EmailMessage parseEmail(std::string_view raw, bool keepHeaders) {
    // Header block ends at the first empty line (LF or CRLF).
    std::size_t bodyStart = raw.size(), headerEnd = raw.size();
    for (std::size_t i = 0; i < raw.size();) {
        const std::size_t eol = raw.find('\n', i);
        const std::size_t lineEnd = eol == std::string_view::npos ? raw.size() : eol;
        std::string_view line = raw.substr(i, lineEnd - i);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) {
            headerEnd = i;
            bodyStart = eol == std::string_view::npos ? raw.size() : eol + 1;
            break;
        }
        i = eol == std::string_view::npos ? raw.size() : eol + 1;
    }
    EmailMessage message;
    // Unfold "From:" (continuation lines start with space/tab); skip the mbox "From " envelope line.
    const std::string_view headers = raw.substr(0, headerEnd);
    for (std::size_t i = 0; i < headers.size();) {
        std::size_t eol = headers.find('\n', i);
        if (eol == std::string_view::npos) eol = headers.size();
        if (headers.size() - i >= 5 && lower(std::string(headers.substr(i, 5))) == "from:") {
            std::string value(headers.substr(i + 5, eol - i - 5));
            while (eol + 1 < headers.size() && (headers[eol + 1] == ' ' || headers[eol + 1] == '\t')) {
                const std::size_t next = std::min(headers.find('\n', eol + 1), headers.size());
                value += " " + std::string(headers.substr(eol + 1, next - eol - 1));
                eol = next;
            }
            message.sender = senderAddress(value);
            break;
        }
        i = eol + 1;
    }
    message.text = keepHeaders ? std::string(raw) : std::string(raw.substr(bodyStart));
    return message;
}

std::vector<std::string> splitMbox(std::string_view mbox) {
    std::vector<std::string> messages;
    std::string current;
    bool started = false;
    for (std::size_t i = 0; i < mbox.size();) {
        const std::size_t eol = mbox.find('\n', i);
        const std::size_t next = eol == std::string_view::npos ? mbox.size() : eol + 1;
        std::string_view line = mbox.substr(i, next - i);
        if (line.substr(0, 5) == "From ") {
            if (started) messages.push_back(withoutSeparatorLine(std::move(current)));
            current.clear();
            started = true;  // the envelope line itself is not part of the message
        } else if (started) {
            // mboxrd quoting: ">From " / ">>From " lose one '>'.
            std::size_t quotes = 0;
            while (quotes < line.size() && line[quotes] == '>') ++quotes;
            if (quotes > 0 && line.substr(quotes, 5) == "From ") line.remove_prefix(1);
            current.append(line);
        }
        i = next;
    }
    if (started) messages.push_back(withoutSeparatorLine(std::move(current)));
    return messages;
}

}  // namespace dpmix::data
