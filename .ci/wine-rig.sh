# .ci/wine-rig.sh: the real DirectML.dll under Wine on lavapipe, as
# functions to source from bash (set -euo pipefail): .ci/parity uses them
# to run the parity corpus, and any other job that needs DirectML under Wine
# can reuse the same cache, prefix and stub. See docs/semantics.md rule 16
# and ../shared/docs/dml-under-wine.md, dml-16bit.md for why each step is
# needed. Nothing under /usr is changed: everything lives in the cache.
#
#   rig_init CACHE      the cache folder (made absolute); Wine's PATH
#   rig_packages        installs wine, wine64, xvfb, xauth, mingw when missing
#   rig_directml        DirectML.dll 1.15.4 in CACHE (npm pack, SHA-256 checked)
#   rig_mesa            Mesa 25 lavapipe from bookworm-backports, unpacked in
#                       CACHE/mesa25; fails (status 1, saying why) when the
#                       packages cannot be fetched and none are cached
#   rig_prefix MODE     the Wine prefix CACHE/prefix with the stub
#                       bcryptprimitives.dll; MODE mesa25 or patched (the
#                       system Mesa 22.3 with the patched wined3d.dll)
#   rig_display_start   Xvfb on a free display (DISPLAY set)
#   rig_wine ARGS...    wine64 ARGS with the mode's driver environment
#   rig_stop            stops the prefix's wineserver and Xvfb
#
# RIG_MESA_MIRROR (default http://deb.debian.org/debian) is the Debian
# mirror the backports packages come from.
#
# After rig_prefix, RIG_MODE is the mode, RIG_DESC says in words what the
# D3D12 device runs on, and RIG_ENV is the array of VAR=value the mode's
# wine64 needs (rig_wine is `env "${RIG_ENV[@]}" wine64`; a caller that
# wraps wine64, in timeout for example, uses RIG_ENV itself).

RIG_ORT_VERSION=1.30.0
RIG_DML_PATH_IN_TGZ=package/bin/napi-v6/win32/x64/DirectML.dll
RIG_DML_SHA256=234e8898778cdec88d3cb0539508273494082812c968699f3de665a018971625
RIG_WINED3D=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/wined3d.dll
# The backports packages the Mesa 25 lavapipe needs beside bookworm's own
# libraries (it links bookworm's libLLVM-15): its libdrm is newer.
RIG_MESA_SUITE=bookworm-backports
RIG_MESA_PKGS="mesa-vulkan-drivers libdrm2 libdrm-amdgpu1"
RIG_MESA_MIRROR=${RIG_MESA_MIRROR:-http://deb.debian.org/debian}

rig_say() { printf 'rig: %s\n' "$*"; }

rig_init() {
	mkdir -p "$1"
	RIG_CACHE=$(cd "$1" && pwd)
	export PATH=/usr/lib/wine:$PATH # Debian has no /usr/bin/wine64
	export WINEPREFIX=$RIG_CACHE/prefix WINEARCH=win64 WINEDEBUG=${WINEDEBUG:--all}
}

rig_packages() {
	PKGS="wine wine64 libwine xvfb xauth gcc-mingw-w64-x86-64-win32 libvulkan1 mesa-vulkan-drivers" sh .ci/apt-install
	command -v npm >/dev/null 2>&1 || PKGS="npm" sh .ci/apt-install
	command -v wine64 >/dev/null || { rig_say "wine64 not found in /usr/lib/wine"; return 1; }
}

rig_directml() {
	local dll=$RIG_CACHE/DirectML.dll tgz=$RIG_CACHE/onnxruntime-node-$RIG_ORT_VERSION.tgz
	if echo "$RIG_DML_SHA256  $dll" | sha256sum -c --status 2>/dev/null; then
		return 0
	fi
	if [ ! -s "$tgz" ]; then
		rig_say "fetching onnxruntime-node@$RIG_ORT_VERSION with npm pack (about 113 MB)"
		(cd "$RIG_CACHE" && npm pack --silent "onnxruntime-node@$RIG_ORT_VERSION" >/dev/null)
	fi
	tar -xzf "$tgz" -C "$RIG_CACHE" "$RIG_DML_PATH_IN_TGZ"
	mv "$RIG_CACHE/$RIG_DML_PATH_IN_TGZ" "$dll"
	rm -rf "$RIG_CACHE/package"
	if ! echo "$RIG_DML_SHA256  $dll" | sha256sum -c --status; then
		rig_say "DirectML.dll from onnxruntime-node@$RIG_ORT_VERSION does not have the expected SHA-256 $RIG_DML_SHA256"
		return 1
	fi
}

# rig_apt runs apt-get or apt-cache ($1) on a private list of the backports
# suite in CACHE/mesa25/apt: the system's sources, lists and lock are left
# alone. apt checks the suite's Release signature with Debian's keyring and
# each .deb against the SHA-256 the signed index gives.
rig_apt() {
	local tool=$1 a=$RIG_CACHE/mesa25/apt
	shift
	"$tool" -q -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o Dir::Etc::Preferences=/nonexistent \
		-o Dir::Etc::PreferencesParts=/nonexistent -o APT::Sandbox::User=root -o Debug::NoLocking=1 \
		-o Acquire::Retries=2 -o Acquire::http::Timeout=20 "$@"
}

rig_mesa() {
	local m=$RIG_CACHE/mesa25 lib
	lib=$m/root/usr/lib/x86_64-linux-gnu
	# A complete cache (debs as recorded, unpacked from them) needs no
	# network.
	if [ -s "$m/debs.sha256" ] && (cd "$m/debs" && sha256sum -c --status ../debs.sha256) &&
		cmp -s "$m/debs.sha256" "$m/root/.unpacked-from" && [ -e "$lib/libvulkan_lvp.so" ]; then
		rig_mesa_env
		return 0
	fi
	rm -rf "$m/debs" "$m/root" "$m/debs.sha256"
	mkdir -p "$m/apt/lists/partial" "$m/apt/cache/archives/partial" "$m/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $RIG_MESA_MIRROR $RIG_MESA_SUITE main" >"$m/apt/sources.list"
	rig_say "fetching $RIG_MESA_PKGS from $RIG_MESA_SUITE (about 11 MB)"
	if ! rig_apt apt-get update >"$m/apt.log" 2>&1 || grep -q '^\(E:\|Err:\|W: Failed\)' "$m/apt.log"; then
		rig_say "cannot read $RIG_MESA_SUITE from $RIG_MESA_MIRROR: $(grep '^\(E:\|Err:\|W: Failed\)' "$m/apt.log" | head -1)"
		return 1
	fi
	local p ver want
	for p in $RIG_MESA_PKGS; do
		ver=$(rig_apt apt-cache policy "$p" 2>/dev/null | awk -v s="$RIG_MESA_SUITE" '$0 ~ s {print prev} {prev=$1}' | head -1)
		if [ -z "$ver" ]; then
			rig_say "$RIG_MESA_SUITE has no $p"
			return 1
		fi
		if ! (cd "$m/debs" && rig_apt apt-get download "$p=$ver" >>"$m/apt.log" 2>&1); then
			rig_say "apt-get download $p=$ver failed: $(tail -1 "$m/apt.log")"
			return 1
		fi
		# The index's SHA-256 (apt has checked it; recorded for the cache).
		want=$(rig_apt apt-cache show "$p=$ver" | awk '/^SHA256:/ {print $2; exit}')
		echo "$want  $(cd "$m/debs" && ls "${p}_"*.deb)" >>"$m/debs.sha256"
	done
	if ! (cd "$m/debs" && sha256sum -c --status ../debs.sha256); then
		rig_say "the downloaded packages do not match the SHA-256 of $RIG_MESA_SUITE's index"
		rm -f "$m/debs.sha256"
		return 1
	fi
	mkdir -p "$m/root"
	for p in "$m"/debs/*.deb; do
		dpkg-deb -x "$p" "$m/root"
	done
	cp "$m/debs.sha256" "$m/root/.unpacked-from"
	rig_mesa_env
}

# rig_mesa_env writes the ICD JSON with the library's absolute path and
# sets RIG_MESA_DESC.
rig_mesa_env() {
	local m=$RIG_CACHE/mesa25 ver
	local lib=$m/root/usr/lib/x86_64-linux-gnu
	printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvulkan_lvp.so", "api_version": "1.4.305"}}\n' "$lib" >"$m/lvp_icd.json"
	RIG_MESA_ICD=$m/lvp_icd.json RIG_MESA_LIB=$lib
	ver=$(cd "$m/debs" && ls mesa-vulkan-drivers_*.deb | sed 's/^mesa-vulkan-drivers_\(.*\)_amd64.deb$/\1/; s/%7e/~/g')
	RIG_MESA_DESC="lavapipe $ver ($RIG_MESA_SUITE, unpacked in the cache) under Wine's own d3d12"
}

rig_prefix() {
	RIG_MODE=$1
	local sys32=$WINEPREFIX/drive_c/windows/system32
	if [ ! -d "$sys32" ]; then
		rig_say "creating the Wine prefix $WINEPREFIX"
		wine64 wineboot -i >"$RIG_CACHE/wineboot.log" 2>&1 || { cat "$RIG_CACHE/wineboot.log"; return 1; }
		wineserver -w
	fi
	# Go's start-up needs ProcessPrng, which Wine 8.0 lacks.
	x86_64-w64-mingw32-gcc -shared -O1 -o "$sys32/bcryptprimitives.dll" parity/stub/bcryptprimitives.c -ladvapi32
	case $RIG_MODE in
	mesa25)
		# The unpacked ICD and its libdrm; Wine's builtin wined3d (its vkd3d
		# works on a driver with descriptor indexing).
		RIG_DESC=$RIG_MESA_DESC
		RIG_ENV=(VK_DRIVER_FILES="$RIG_MESA_ICD" LD_LIBRARY_PATH="$RIG_MESA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WINEDLLOVERRIDES=wined3d=b)
		;;
	patched)
		# vkd3d 1.6 in Wine's wined3d.dll drops every descriptor table on a
		# device without descriptor indexing (Mesa 22.3): the patched copy
		# goes in the prefix only.
		"${GO:-go}" run ./parity/cmd/patchwined3d "$RIG_WINED3D" "$sys32/wined3d.dll"
		RIG_DESC="the system lavapipe ($(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)) under Wine's d3d12 with the patched wined3d.dll"
		RIG_ENV=(WINEDLLOVERRIDES=wined3d=n)
		;;
	*)
		rig_say "rig_prefix: unknown mode $RIG_MODE (mesa25 or patched)"
		return 1
		;;
	esac
}

rig_display_start() {
	local n display=""
	for n in $(seq 99 199); do
		if [ ! -e "/tmp/.X$n-lock" ] && [ ! -e "/tmp/.X11-unix/X$n" ]; then
			display=$n
			break
		fi
	done
	[ -n "$display" ] || { rig_say "no free X display between :99 and :199"; return 1; }
	Xvfb ":$display" -screen 0 1024x768x24 -nolisten tcp >"$RIG_CACHE/xvfb.log" 2>&1 &
	RIG_XVFB_PID=$!
	for _ in $(seq 100); do
		[ -e "/tmp/.X11-unix/X$display" ] && break
		kill -0 "$RIG_XVFB_PID" 2>/dev/null || { cat "$RIG_CACHE/xvfb.log"; rig_say "Xvfb did not start"; return 1; }
		sleep 0.1
	done
	export DISPLAY=:$display
}

# rig_wine runs wine64 with the mode's Vulkan driver and wined3d.
rig_wine() { env "${RIG_ENV[@]}" wine64 "$@"; }

rig_stop() {
	wineserver -k 2>/dev/null || true
	if [ -n "${RIG_XVFB_PID:-}" ]; then
		kill "$RIG_XVFB_PID" 2>/dev/null || true
		wait "$RIG_XVFB_PID" 2>/dev/null || true
		RIG_XVFB_PID=""
	fi
}
