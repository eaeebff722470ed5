#!/usr/bin/env bash
# Written by `fencing-lab lab init @LANGUAGE@ DIR --ci gradescope`. Gradescope runs this once, as
# root, when it builds the autograder's image (Ubuntu): it installs the language's runtime, Rust
# (through rustup, if cargo is missing) and fencing-lab, so that run_autograder finds them.
set -euo pipefail

language="@LANGUAGE@"

# Where fencing-lab is installed from: its git URL on the next line, or fencing-lab's
# source in a folder fencing-lab/ beside this file in the zip (then installed from that path).
FENCING_LAB_GIT=""  # e.g. FENCING_LAB_GIT="https://github.com/your-course/fencing-lab"

here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:$HOME/.cargo/bin"

apt_install() {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# The language's runtime: python3 3.8+, Node 18+, or a JDK 17+.
case "$language" in
python)
    command -v python3 >/dev/null || apt_install python3
    ;;
js)
    if ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)' 2>/dev/null; then
        apt_install ca-certificates curl gnupg
        curl -fsSL https://deb.nodesource.com/setup_20.x | bash -
        apt_install nodejs
    fi
    ;;
java)
    command -v javac >/dev/null || apt_install openjdk-17-jdk-headless
    ;;
esac

# Rust, to build fencing-lab (and a Rust student's crate), with a C linker.
command -v cc >/dev/null || apt_install build-essential
if ! command -v cargo >/dev/null; then
    command -v curl >/dev/null || apt_install ca-certificates curl
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
fi

# fencing-lab itself, in /usr/local/bin, on every later shell's PATH.
if ! command -v fencing-lab >/dev/null; then
    command -v git >/dev/null || apt_install git
    if [ -f "$here/fencing-lab/Cargo.toml" ]; then
        cargo install --locked --root /usr/local --path "$here/fencing-lab"
    elif [ -n "$FENCING_LAB_GIT" ]; then
        cargo install --locked --root /usr/local --git "$FENCING_LAB_GIT" fencing-lab
    else
        echo "setup.sh: set FENCING_LAB_GIT at the top of setup.sh to the git URL fencing-lab is installed from, or put its source in fencing-lab/ beside setup.sh" >&2
        exit 1
    fi
fi
fencing-lab --version
