#!/usr/bin/env bash
# Installs a built dbmon (a checkout or unpacked release with dist/ built and node_modules
# installed) as a systemd service, or removes it.
#
#   scripts/install.sh [--prefix DIR] [--root DIR]           install or upgrade
#   scripts/install.sh --uninstall [--purge] [--prefix DIR] [--root DIR]
#
#   --prefix DIR   where the program goes (default /opt/dbmon)
#   --root DIR     install into DIR as if it were / (a staging tree or a throwaway root for tests);
#                  paths written into units and wrappers stay the real ones (/etc/dbmon, PREFIX)
#   --uninstall    removes the program, the units and the command links; keeps /etc/dbmon and the
#                  state (/var/lib/dbmon, /var/lib/dbmon-agent)
#   --purge        with --uninstall: removes /etc/dbmon and the state too
#
# Installs:  PREFIX/{dist (server, agent, common, web),node_modules,package.json,package-lock.json,docs,config,bin}
#            /etc/dbmon/server.yaml, agent.yaml   from config/*.example.yaml, only when absent:
#                                                 an edited config is never overwritten
#            /etc/dbmon/secret-key                root-only, generated when absent (LoadCredential)
#            /etc/systemd/system/dbmon-server.service, dbmon-agent.service
#            /usr/local/bin/dbmon, dbmon-agent    links to PREFIX/bin wrappers
# Idempotent: running it again (or with a newer release) replaces the program and the units,
# keeps config and data, and restarts the services that were running (when systemd runs).
set -euo pipefail

prefix=/opt/dbmon
root=
action=install
purge=0

log() { printf 'dbmon install: %s\n' "$*"; }
die() { printf 'dbmon install: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --root) [ $# -ge 2 ] || die "--root needs a directory"; root=$2; shift 2 ;;
    --root=*) root=${1#--root=}; shift ;;
    --uninstall) action=uninstall; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

case $prefix in
  /*) ;;
  *) die "--prefix must be an absolute path: $prefix" ;;
esac
prefix=${prefix%/}
case $prefix in
  ''|/usr|/usr/local|/etc|/var|/opt|/home|/root|/bin|/sbin|/lib|/tmp) die "--prefix $prefix/ would mix dbmon into a system directory; use e.g. /opt/dbmon" ;;
esac
[ "$purge" -eq 0 ] || [ "$action" = uninstall ] || die "--purge goes with --uninstall"
if [ -n "$root" ]; then
  mkdir -p "$root"
  root=$(cd "$root" && pwd)
  [ "$root" != / ] || root=
fi
[ -n "$root" ] || [ "$(id -u)" -eq 0 ] || die "installing into / needs root (or give --root DIR for a staging tree)"

dest=$root$prefix
etc=$root/etc/dbmon
unit_dir=$root/etc/systemd/system
bin_dir=$root/usr/local/bin
marker=.dbmon-install
units=(dbmon-server.service dbmon-agent.service)
commands=(dbmon dbmon-agent)

# systemctl only for the real root of a machine booted with systemd (the sd_booted() test).
systemd_running() { [ -z "$root" ] && [ -d /run/systemd/system ]; }

uninstall() {
  if systemd_running; then
    log "stopping and disabling ${units[*]}"
    systemctl disable --now "${units[@]}" 2>/dev/null || true
  fi
  for unit in "${units[@]}"; do rm -f "$unit_dir/$unit"; done
  for command in "${commands[@]}"; do
    if [ -L "$bin_dir/$command" ] && [ "$(readlink "$bin_dir/$command")" = "$prefix/bin/$command" ]; then
      rm -f "$bin_dir/$command"
    fi
  done
  if [ -d "$dest" ]; then
    [ -e "$dest/$marker" ] || die "$dest was not installed by this script (no $marker); not removing it"
    rm -rf "$dest"
    log "removed $dest"
  fi
  if systemd_running; then systemctl daemon-reload; fi
  if [ "$purge" -eq 1 ]; then
    rm -rf "$etc" "$root/var/lib/dbmon" "$root/var/lib/private/dbmon" "$root/var/lib/dbmon-agent" "$root/var/lib/private/dbmon-agent"
    log "purged $etc and the state directories"
  else
    log "kept configuration ($etc) and data ($root/var/lib/dbmon, $root/var/lib/dbmon-agent); --uninstall --purge removes them"
  fi
}

if [ "$action" = uninstall ]; then
  uninstall
  exit 0
fi

# --- install -----------------------------------------------------------------------------
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -f "$src/dist/server/main.js" ] && [ -f "$src/dist/server/cli.js" ] ||
  die "no built server in $src/dist; run 'npm ci && npm run build' first"
[ -d "$src/node_modules" ] || die "no node_modules in $src; run 'npm ci' first"
has_agent=0
[ -f "$src/dist/agent/main.js" ] && has_agent=1

node_bin=$(command -v node) || die "node is not on PATH (dbmon needs Node.js 20.12 or newer)"
node_bin=$(readlink -f "$node_bin")
node_version=$("$node_bin" -p 'process.versions.node')
"$node_bin" -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 20 || (major === 20 && minor >= 12) ? 0 : 1)' ||
  die "$node_bin is Node.js $node_version; dbmon needs 20.12 or newer"
case $node_bin in
  /home/*|/root/*|/run/user/*)
    log "warning: $node_bin is under a home directory, which the units hide (ProtectHome=yes); install Node.js system-wide" ;;
esac
version=$("$node_bin" -p "require('$src/package.json').version")
modules_stamp="$(sha256sum "$src/package-lock.json" | cut -d' ' -f1) $("$node_bin" -p 'process.versions.modules + "-" + process.platform + "-" + process.arch')"

if [ -e "$dest" ] && [ ! -e "$dest/$marker" ]; then
  die "$dest exists and was not installed by this script (no $marker); choose another --prefix"
fi
stage=$dest.new-$$
old=$dest.old-$$
trap 'rm -rf "$stage" "$old"' EXIT
rm -rf "$stage"
mkdir -p "$stage"

log "installing dbmon $version from $src into $dest"
mkdir -p "$stage/dist" "$stage/docs" "$stage/config" "$stage/bin"
for part in server agent common web; do
  if [ -d "$src/dist/$part" ]; then cp -R "$src/dist/$part" "$stage/dist/$part"; fi
done
cp "$src/package.json" "$src/package-lock.json" "$stage/"
if [ -f "$src/docs/operations.md" ]; then cp "$src/docs/operations.md" "$stage/docs/"; fi
for example in "$src"/config/*.example.yaml; do
  if [ -f "$example" ]; then cp "$example" "$stage/config/"; fi
done

# Production dependencies: reused from the previous install when the lock file and Node's ABI are
# unchanged, else copied from the checkout's node_modules (already built for this Node: nothing is
# downloaded or compiled). `npm ls --omit=dev` names them; each top-level package is copied with
# its nested node_modules (a production package's own dependencies), without node-gyp's
# intermediate build files.
if [ -f "$dest/node_modules/.dbmon-modules-stamp" ] && [ "$(cat "$dest/node_modules/.dbmon-modules-stamp")" = "$modules_stamp" ]; then
  log "dependencies unchanged; reusing $dest/node_modules"
  # Hard links: instant, and safe since installed files are only ever replaced, never edited.
  cp -al "$dest/node_modules" "$stage/node_modules" 2>/dev/null || cp -R "$dest/node_modules" "$stage/node_modules"
else
  packages=$(cd "$src" && npm ls --omit=dev --all --parseable 2>/dev/null) ||
    die "node_modules in $src does not match package-lock.json; run 'npm ci' first"
  top_level=$(printf '%s\n' "$packages" | sed -n "s|^$src/node_modules/||p" | grep -v '/node_modules/' || true)
  mkdir -p "$stage/node_modules"
  if [ -n "$top_level" ]; then
    printf '%s\n' "$top_level" |
      tar -C "$src/node_modules" --exclude=build/Release/obj --exclude=build/Release/obj.target \
        --exclude=build/Release/.deps -cf - -T - |
      tar -C "$stage/node_modules" -xf -
  fi
  printf '%s\n' "$modules_stamp" >"$stage/node_modules/.dbmon-modules-stamp"
fi

write_wrapper() { # write_wrapper NAME CONFIG_ENV CONFIG_FILE ENTRY
  # node's flags as the entry's own #! line gives them (the agent's small young generation).
  node_flags=$(sed -n '1s/^#!.*[ /]node\( \{1,\}\)\{0,1\}//p' "$stage/$4")
  cat >"$stage/bin/$1" <<EOF
#!/bin/sh
# dbmon $version: $1 with the installed configuration (set $2 to use another).
$2=\${$2:-$3}
export $2
exec "$node_bin" ${node_flags:+$node_flags }"$prefix/$4" "\$@"
EOF
  chmod 0755 "$stage/bin/$1"
}
write_wrapper dbmon DBMON_CONFIG /etc/dbmon/server.yaml dist/server/cli.js
write_wrapper dbmon-server DBMON_CONFIG /etc/dbmon/server.yaml dist/server/main.js
if [ "$has_agent" -eq 1 ]; then write_wrapper dbmon-agent DBMON_AGENT_CONFIG /etc/dbmon/agent.yaml dist/agent/main.js; fi
printf 'dbmon %s installed %s\n' "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$stage/$marker"
chmod -R u=rwX,go=rX "$stage"

# Swap the new program in; the running server keeps the files it already loaded until restarted.
mkdir -p "$(dirname "$dest")"
if [ -e "$dest" ]; then mv "$dest" "$old"; fi
mv "$stage" "$dest"
rm -rf "$old"

# Configuration: created from the examples when absent, never overwritten.
install -d -m 0755 "$etc"
if [ ! -e "$etc/server.yaml" ]; then
  sed -e 's|^state_dir: .*|state_dir: /var/lib/dbmon  # under systemd, StateDirectory= decides (DBMON_STATE_DIR)|' \
      -e 's|^# secret_key_file: .*|secret_key_file: /etc/dbmon/secret-key  # under systemd, the secret-key credential is used|' \
      "$src/config/server.example.yaml" >"$etc/server.yaml"
  chmod 0644 "$etc/server.yaml"
  log "created $etc/server.yaml"
else
  log "kept $etc/server.yaml"
fi
if [ "$has_agent" -eq 1 ] && [ -f "$src/config/agent.example.yaml" ]; then
  if [ ! -e "$etc/agent.yaml" ]; then
    install -m 0644 "$src/config/agent.example.yaml" "$etc/agent.yaml"
    log "created $etc/agent.yaml"
  else
    log "kept $etc/agent.yaml"
  fi
fi
if [ ! -e "$etc/secret-key" ]; then
  # A server that ran before with a generated key keeps it: that key decrypts its stored passwords.
  previous_key=
  for candidate in "$root/var/lib/private/dbmon/secret.key" "$root/var/lib/dbmon/secret.key"; do
    if [ -f "$candidate" ]; then previous_key=$candidate; break; fi
  done
  (
    umask 077
    if [ -n "$previous_key" ]; then
      cp "$previous_key" "$etc/secret-key"
    else
      od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$etc/secret-key"
      printf '\n' >>"$etc/secret-key"
    fi
  )
  chmod 0600 "$etc/secret-key"
  if [ -n "$previous_key" ]; then log "copied the existing secret key $previous_key to $etc/secret-key"; else log "generated $etc/secret-key"; fi
fi

# Units, with the prefix and this machine's node substituted.
install -d -m 0755 "$unit_dir"
for unit in "${units[@]}"; do
  if [ "$unit" = dbmon-agent.service ] && [ "$has_agent" -eq 0 ]; then continue; fi
  sed -e "s|/opt/dbmon|$prefix|g" -e "s|/usr/bin/node |$node_bin |g" "$src/systemd/$unit" >"$unit_dir/$unit.tmp"
  chmod 0644 "$unit_dir/$unit.tmp"
  mv "$unit_dir/$unit.tmp" "$unit_dir/$unit"
done

install -d -m 0755 "$bin_dir"
for command in "${commands[@]}"; do
  if [ -e "$dest/bin/$command" ]; then ln -sfn "$prefix/bin/$command" "$bin_dir/$command"; fi
done

if systemd_running; then
  systemctl daemon-reload
  # An upgrade: restart what was running, so it runs the new program (migrations back up first).
  systemctl try-restart "${units[@]}" || true
else
  log "systemd is not running here (or --root was given): no daemon-reload"
fi

cat <<EOF

dbmon $version is installed in $prefix.
  configuration  /etc/dbmon/server.yaml$([ "$has_agent" -eq 1 ] && printf ', /etc/dbmon/agent.yaml')
  secret key     /etc/dbmon/secret-key (root-only; keep a copy with your backups: without it the
                 database passwords stored in dbmon cannot be decrypted)
  units          /etc/systemd/system/dbmon-server.service$([ "$has_agent" -eq 1 ] && printf ', dbmon-agent.service')
  commands       /usr/local/bin/dbmon (operator CLI)$([ "$has_agent" -eq 1 ] && printf ', /usr/local/bin/dbmon-agent')

Next steps:
  1. Review /etc/dbmon/server.yaml (listen address, port), then start the server:
       systemctl enable --now dbmon-server
  2. The initial credentials (organization, admin password, API key) are written on first start to
       /var/lib/dbmon/initial-admin.json   (owner-only; read it with: sudo cat /var/lib/dbmon/initial-admin.json)
     Move them somewhere safe and delete the file.
  3. Check:  curl -s http://127.0.0.1:7117/healthz     Logs:  journalctl -u dbmon-server
EOF
if [ "$has_agent" -eq 1 ]; then
  cat <<EOF
  4. Agent (on each database host): create a key with the agent scope,
       dbmon keys create --org ORG_ID --name agent-HOST --permission write --service-account agent-HOST --scopes agent
     put it in /etc/dbmon/agent-key (mode 0600), set server.url in /etc/dbmon/agent.yaml, then
       systemctl enable --now dbmon-agent
EOF
fi
cat <<EOF
Backups: dbmon backup FILE (online); upgrades: run this script from the new release.
See $prefix/docs/operations.md.
EOF
