#!/usr/bin/env bash
# Builds yomi's OCI image with buildah, from scratch: no base image is downloaded. The image holds
#   /opt/yomi/yomi, the bot plugins beside it (yomi loads plugins from its own directory) and
#   yomi-ping (deploy/ping.sh, the protocol probe), with their debug info stripped;
#   the shared libraries `ldd` lists for them, and bash and env for yomi-ping, from this machine;
#   /etc/passwd and /etc/group naming the user yomi (10001), and /var/lib/yomi, its data directory,
#   a volume. It runs as 10001, serving TCP on 7878 and HTTP on 8080; tokens come from the
#   environment (YOMI_TOKEN, YOMI_OPERATOR_TOKEN) or files (--token-file).
# Installs buildah (and podman and runc, which scripts/test-image.sh runs it with) from Debian's
# packages when missing. Uses the release build, making it when missing.
#   scripts/build-image.sh [IMAGE]      (default ghcr.io/yomi-ai/yomi:VERSION, VERSION from Cargo.toml)
# Leaves the root file system it assembled in target/image/rootfs and the figures in
# target/image/build.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
image=${1:-ghcr.io/yomi-ai/yomi:$version}
work="$PWD/target/image"
rootfs="$work/rootfs"

install_container_tools() {
  local missing=()
  command -v buildah >/dev/null || missing+=(buildah)
  command -v podman >/dev/null || missing+=(podman)
  [[ -x /usr/bin/runc || -x /usr/sbin/runc ]] || missing+=(runc)
  ((${#missing[@]})) || return 0
  echo "installing ${missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Copies every shared library ldd lists for the files given into $rootfs, at its own path.
copy_libraries() {
  local lib listed
  listed=$(ldd "$@")
  [[ $listed != *"not found"* ]] || { echo "a library is missing here:"; echo "$listed"; exit 1; }
  for lib in $(grep -oP '^\s+(\S+ => )?\K/\S+' <<<"$listed" | sort -u); do
    [[ -e $rootfs$lib ]] && continue
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done
}

install_container_tools
use_release_binary
started=$(date +%s.%N)
mkdir -p "$work"
# scripts/test-image.sh may have mounted /proc there to run the file system under chroot.
if mountpoint -q "$rootfs/proc" 2>/dev/null; then umount "$rootfs/proc"; fi
rm -rf --one-file-system "$rootfs"
mkdir -p "$rootfs/opt/yomi" "$rootfs/etc" "$rootfs/var/lib/yomi" "$rootfs/tmp"
release=$(dirname "$YOMI_BIN")
plugins=("$release"/libyomi_*.so)
# The workspace's test fixtures are plugins too; the image carries the bots only.
bots=()
for plugin in "${plugins[@]}"; do
  name=$(basename "$plugin" .so)
  name=${name#libyomi_}
  [[ -f bots/$name/Cargo.toml ]] && bots+=("$plugin")
done
for file in "$YOMI_BIN" "${bots[@]}"; do
  strip --strip-debug -o "$rootfs/opt/yomi/$(basename "$file")" "$file"
done
install -m 0755 deploy/ping.sh "$rootfs/opt/yomi/yomi-ping"
mkdir -p "$rootfs/usr/bin" "$rootfs/bin"
cp /usr/bin/env "$rootfs/usr/bin/env"
cp /bin/bash "$rootfs/bin/bash"
copy_libraries /usr/bin/env /bin/bash "$rootfs"/opt/yomi/yomi "$rootfs"/opt/yomi/*.so
printf 'root:x:0:0:root:/root:/bin/bash\nyomi:x:10001:10001:yomi:/var/lib/yomi:/bin/bash\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nyomi:x:10001:\n' > "$rootfs/etc/group"
chmod 1777 "$rootfs/tmp"
chown 10001:10001 "$rootfs/var/lib/yomi"

container=$(buildah from scratch)
trap 'buildah rm "$container" >/dev/null 2>&1 || true' EXIT
# One layer, from a tar of the root file system: buildah keeps an archive's owners (a copied
# directory would be root's), and the data directory is the user's.
tar -C "$rootfs" --numeric-owner -cf "$work/rootfs.tar" .
buildah add --quiet "$container" "$work/rootfs.tar" / >/dev/null
build=$("$YOMI_BIN" --version | grep -oP 'build \K[^)]+' || echo unknown)
buildah config \
  --user 10001:10001 \
  --workingdir /var/lib/yomi \
  --volume /var/lib/yomi \
  --env PATH=/opt/yomi:/usr/bin:/bin \
  --env YOMI_DATA_DIR=/var/lib/yomi \
  --port 7878 --port 8080 \
  --entrypoint '["/opt/yomi/yomi"]' \
  --cmd 'serve --tcp 0.0.0.0:7878 --http 0.0.0.0:8080' \
  --label org.opencontainers.image.title=yomi \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$build" \
  --label org.opencontainers.image.source=https://github.com/yomi-ai/yomi \
  --label org.opencontainers.image.licenses="MIT OR Apache-2.0" \
  "$container"
previous=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
buildah commit --quiet --rm --format oci "$container" "$image" >/dev/null
trap - EXIT
# The image this one replaces under the same name, unless a container still uses it.
if [[ -n $previous && $previous != $(podman image inspect --format '{{.Id}}' "$image") ]]; then
  podman rmi "$previous" >/dev/null 2>&1 || true
fi
finished=$(date +%s.%N)

size=$(podman image inspect --format '{{.Size}}' "$image" 2>/dev/null)
seconds=$(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.2f", b - a }')
{
  echo "image $image"
  echo "build $build"
  echo "rootfs_bytes $(du -sb "$rootfs" | cut -f1)"
  echo "image_bytes $size"
  echo "build_seconds $seconds"
} | tee "$work/build.txt"
