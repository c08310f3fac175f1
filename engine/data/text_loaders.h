#pragma once
// The text loaders behind loadTextSource (options are documented in source_loader.h).
#include "engine/core/result.h"
#include "engine/data/source_loader.h"

#include <optional>
#include <string>

namespace dpmix::data {

Result<TextCorpus> loadJsonlSource(const SourceSpec& spec);
Result<TextCorpus> loadTextFolderSource(const SourceSpec& spec, const LoadControl& control = {});
Result<TextCorpus> loadSpamAssassinSource(const SourceSpec& spec, const LoadControl& control = {});
Result<TextCorpus> loadMboxSource(const SourceSpec& spec);
Result<TextCorpus> loadMaildirSource(const SourceSpec& spec, const LoadControl& control = {});

/// Between files/images of a long load: reports progress every `every` items and at the end,
/// and throws dpmix::Cancelled when the token is set.
void loadStep(const SourceSpec& spec, const LoadControl& control, std::size_t done, std::size_t total,
              std::size_t every = 64);

/// Applies the "encoding_errors" option (error = default, or replace) to one document's text;
/// `where` names the file and record in the error.
/// The option encoding_errors: absent, "error" or "replace"; anything else is an error at once,
/// not only when an invalid byte is met.
Status checkEncodingErrorsOption(const SourceSpec& spec);

Result<std::string> checkedUtf8(const SourceSpec& spec, std::string text, const std::string& where);

}  // namespace dpmix::data
