#!/usr/bin/env bash
# Neovim (headless) with the configurations docs/editors.md gives, copied out of the doc: opens
# FILE of the project at APP, saves it, and waits for the language server's diagnostic CODE
# (exactly one, from `agent-surface`). The Neovim 0.7+ configuration is always tested (Debian 12
# ships 0.7.2); the 0.11+ one (vim.lsp.config) when the installed Neovim is 0.11 or later.
# `agent-surface` must be on PATH.
#
#   scripts/test-neovim.sh APP FILE CODE
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
[ $# -eq 3 ] || { echo "usage: $0 APP FILE CODE" >&2; exit 2; }
APP="$1" FILE="$2" CODE="$3"
command -v nvim >/dev/null || { echo "error: nvim is missing (apt-get install neovim)" >&2; exit 1; }
command -v agent-surface >/dev/null || { echo "error: agent-surface is not on PATH" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The lua block after `<!-- test: NAME -->` in docs/editors.md.
config_of() {
  awk -v marker="<!-- test: $1 -->" '
    $0 == marker { found = 1; next }
    found && /^```lua$/ { inside = 1; next }
    inside && /^```$/ { exit }
    inside { print }
  ' "$ROOT/docs/editors.md"
}

cat >"$WORK/driver.lua" <<'LUA'
-- Open the file, save it, wait for the diagnostic; write what was seen to $RESULT; quit.
local result = assert(os.getenv('RESULT'))
local code = assert(os.getenv('CODE'))
local function finish(text)
  local f = assert(io.open(result, 'w'))
  f:write(text)
  f:close()
  vim.cmd('qall!')
end
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('FILE')))
vim.cmd('write')
local found
local ok = vim.wait(30000, function()
  found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    if d.source == 'agent-surface' then
      table.insert(found, (d.code or lsp.code or '?') .. ' ' .. (d.lnum + 1) .. ':' .. (d.col + 1) .. ' ' .. d.message:gsub('\n.*', ''))
    end
  end
  return #found > 0
end, 50)
if not ok then
  local clients = {}
  for _, c in pairs(vim.lsp.get_active_clients()) do table.insert(clients, c.name) end
  return finish('no diagnostic within 30 s; clients: ' .. table.concat(clients, ', ') .. '; filetype: ' .. vim.bo.filetype)
end
-- Past the server's debounce and the watcher's event for the save: still exactly one.
vim.wait(1000)
found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  if d.source == 'agent-surface' then
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(found, (d.code or lsp.code or '?'))
  end
end
finish(table.concat(found, ','))
LUA

version="$(nvim --version | head -n 1)"
minor="$(echo "$version" | sed -E 's/^NVIM v0\.([0-9]+).*/\1/')"
run() { # run NAME
  local name="$1"
  config_of "$name" >"$WORK/init-$name.lua"
  [ -s "$WORK/init-$name.lua" ] || { echo "error: docs/editors.md has no lua block marked $name" >&2; exit 1; }
  rm -f "$WORK/result"
  (cd "$APP" && RESULT="$WORK/result" CODE="$CODE" FILE="$FILE" timeout 90 \
    nvim --headless --clean -u "$WORK/init-$name.lua" -c "luafile $WORK/driver.lua" >"$WORK/nvim.log" 2>&1) || true
  local seen
  seen="$(cat "$WORK/result" 2>/dev/null || echo "nvim wrote no result: $(cat "$WORK/nvim.log")")"
  if [ "$seen" != "$CODE" ]; then
    echo "error: $version with docs/editors.md's $name configuration: expected exactly one $CODE in $FILE, saw: $seen" >&2
    exit 1
  fi
  echo "  $version, $name configuration: $FILE has its $CODE, once"
}
run neovim-0.7
if [ "$minor" -ge 11 ]; then
  run neovim-0.11
else
  echo "  $version: the 0.11+ configuration (vim.lsp.config) needs Neovim 0.11 or later; not run here"
fi
