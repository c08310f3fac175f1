// `dpmix keys init [--dir D]` and `dpmix keys show [--dir D]`: the data owner's Ed25519 key pair
// (project/owner_key.h), which signs releases at export and projects with `dpmix sign`. The
// public key (owner.pub) goes to reviewers by a channel of their own; `dpmix verify` checks it.
#include "app/cli/command.h"
#include "engine/project/owner_key.h"

#include <iostream>
#include <memory>
#include <string>

namespace dpmix::cli {
namespace {

struct KeysArgs {
    std::string dir;
};

Result<std::filesystem::path> keyDir(const std::string& given) {
    if (!given.empty()) return std::filesystem::path(given);
    return project::ownerKeyDir();
}

}  // namespace

void registerKeysCommand(CLI::App& app, CommandContext& ctx) {
    auto args = std::make_shared<KeysArgs>();
    auto* keys = app.add_subcommand("keys", "The data owner's signing key (Ed25519): make it, or print its public key");
    keys->require_subcommand(1);
    const std::string dirHelp =
        "the key folder (default: $DPMIX_KEY_DIR, else $XDG_CONFIG_HOME/dpmix, else ~/.config/dpmix)";
    auto* init = keys->add_subcommand("init", "Make the owner's key pair (owner.key, mode 0600, and owner.pub)");
    init->add_option("--dir", args->dir, dirHelp);
    init->callback([&ctx, args] {
        auto dir = keyDir(args->dir);
        if (!dir) {
            std::cerr << "dpmix keys init: " << dir.error().message << '\n';
            ctx.exitCode = 2;
            return;
        }
        auto key = project::createOwnerKey(*dir);
        if (!key) {
            std::cerr << "dpmix keys init: " << key.error().message << '\n';
            ctx.exitCode = 1;
            return;
        }
        std::cout << "made a new owner key pair in " << dir->string() << "\n  fingerprint "
                  << key->publicKey.fingerprint() << "\n  public key  " << (*dir / "owner.pub").string()
                  << " (give it to reviewers by a channel of your own; keep owner.key secret)\n";
        ctx.exitCode = 0;
    });
    auto* show =
        keys->add_subcommand("show", "Print the owner's public key (the line of owner.pub) and its fingerprint");
    show->add_option("--dir", args->dir, dirHelp);
    show->callback([&ctx, args] {
        auto dir = keyDir(args->dir);
        auto key = dir ? project::loadOwnerKey(*dir) : Result<project::OwnerKeyPair>(dir.error());
        if (!key) {
            std::cerr << "dpmix keys show: " << key.error().message << '\n';
            ctx.exitCode = 1;
            return;
        }
        std::cout << key->publicKey.fileText() << "fingerprint " << key->publicKey.fingerprint() << '\n';
        ctx.exitCode = 0;
    });
}

}  // namespace dpmix::cli
