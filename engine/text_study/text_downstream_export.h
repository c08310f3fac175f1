#pragma once
// dpmix-text's half of the token bridge (text_downstream_tokens.h): tokenises the public domains
// and the sensitive corpus with the tokenizer the proxies run stored, and packs them with the
// users of each split and the λ's the mixture stage chose. Part of the torch-free text-study
// library (it needs sentencepiece).
#include "engine/core/cancellation.h"
#include "engine/core/result.h"
#include "engine/project/project_file.h"
#include "engine/text_study/text_study.h"
#include "engine/text_tokens/text_downstream_tokens.h"

namespace dpmix::text_study {

/// Needs a user-level study whose mixture stage ran (`report` from runTextStudy with "mixture").
Result<text_tokens::TokenCache> buildTokenCache(project::ProjectFile& project, const TextStudyReport& report,
                                                const CancellationToken& cancel = {});

}  // namespace dpmix::text_study
