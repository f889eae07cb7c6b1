#!/usr/bin/env bash
# Prints the Debian archive that this machine's apt uses for a suite (default bookworm), component
# main: the first such entry of /etc/apt/sources.list and /etc/apt/sources.list.d/ (one-line .list
# and deb822 .sources files alike). apt reads them itself (`apt-get indextargets`), so options,
# `Enabled: no` and APT_CONFIG count as they do for apt. Entries debootstrap cannot fetch from
# (cdrom:, mirror+file:, tor+http:) are passed over.
set -euo pipefail
suite=${1:-bookworm}
# shellcheck disable=SC2016 # $(...) here are apt's format fields
apt-get indextargets --no-release-info --format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)' |
  awk -v suite="$suite" '!found && $1 == "deb" && $3 == suite && $4 == "main" && $2 ~ /^(https?|file):/ { print $2; found = 1 }
    END { exit !found }' ||
  {
    echo "debian-mirror: apt has no Debian archive for $suite (main) in /etc/apt/sources.list or /etc/apt/sources.list.d/; set DEBIAN_MIRROR to the URL of one" >&2
    exit 1
  }
