-- :checkhealth adaexplore: Neovim's version, the server's Python and its packages, a real start of the
-- language server (initialize answered), and whether searches run on a GPU or in the Triton interpreter.
local config = require("adaexplore.config")
local health = vim.health
local M = {}

local INSTALL = 'install it into that Python: pip install "adaexplore[server]" '
  .. '(from a checkout: pip install -e ".[server]")'
local CHOOSE = "choose the Python with vim.g.adaexplore_python, setup({ python = ... }) "
  .. "or an active virtual environment"

-- Prints one JSON line: the interpreter and the modules of adaexplore[server] it cannot import.
local PACKAGES_PROBE = [[
import importlib.util, json, sys
wanted = ["adaexplore_server", "pygls", "lsprotocol", "tree_sitter", "tree_sitter_python", "diskcache"]
print(json.dumps({"version": sys.version.split()[0], "executable": sys.executable,
                  "missing": [name for name in wanted if importlib.util.find_spec(name) is None]}))
]]

-- Prints one JSON line: torch and triton versions and the visible CUDA GPUs, or why they do not import.
local DEVICE_PROBE = [[
import json
try:
    import torch, triton
except Exception as error:
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
else:
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    gpus = [torch.cuda.get_device_name(i) for i in range(count)]
    print(json.dumps({"torch": torch.__version__, "triton": triton.__version__, "gpus": gpus}))
]]

--- The command Neovim will start the server with: the resolved vim.lsp.config, else the defaults.
local function server_cmd()
  local ok, resolved = pcall(function() return vim.lsp.config[config.name] end)
  if ok and type(resolved) == "table" and type(resolved.cmd) == "table" then return resolved.cmd end
  return config.server().cmd
end

--- The Python of `cmd` ({python, "-m", "adaexplore_server"}), else the one config would choose.
local function python_of(cmd)
  if cmd[2] == "-m" then return cmd[1] end
  return config.python()
end

--- Run `python -c code` and decode the last line of its output as JSON: (table) or (nil, message).
local function probe(python, code, timeout_ms)
  local ok, job = pcall(vim.system, { python, "-c", code }, { text = true })
  if not ok then return nil, tostring(job) end
  local done = job:wait(timeout_ms)
  if done.code ~= 0 then
    local why = done.code == 124 and ("no answer in " .. timeout_ms / 1000 .. " s") or ("exit status " .. done.code)
    return nil, why .. ": " .. vim.trim(done.stderr or "")
  end
  local lines = vim.split(vim.trim(done.stdout or ""), "\n")
  local decoded_ok, value = pcall(vim.json.decode, lines[#lines])
  if not decoded_ok then return nil, "unexpected output: " .. (done.stdout or "") end
  return value
end

--- JSON-RPC messages in `buffer` (Content-Length framing): the decoded messages and the unread rest.
local function read_messages(buffer)
  local messages = {}
  while true do
    local header_end = buffer:find("\r\n\r\n", 1, true)
    if not header_end then break end
    local length = tonumber(buffer:sub(1, header_end):match("Content%-Length: *(%d+)"))
    if not length or #buffer < header_end + 3 + length then break end
    table.insert(messages, vim.json.decode(buffer:sub(header_end + 4, header_end + 3 + length)))
    buffer = buffer:sub(header_end + 4 + length)
  end
  return messages, buffer
end

local function frame(message)
  local body = vim.json.encode(message)
  return "Content-Length: " .. #body .. "\r\n\r\n" .. body
end

--- Start `cmd`, send initialize and wait for its answer: (InitializeResult, seconds) or (nil, message).
local function initialize(cmd, timeout_ms)
  local buffer, stderr, answer = "", {}, nil
  local started = vim.uv.hrtime()
  local ok, job = pcall(vim.system, cmd, {
    stdin = true,
    stdout = function(_, data)
      if not data then return end
      local messages
      messages, buffer = read_messages(buffer .. data)
      for _, message in ipairs(messages) do
        if message.id == 1 and message.method == nil then answer = message end
      end
    end,
    stderr = function(_, data) if data then table.insert(stderr, data) end end,
  })
  if not ok then return nil, tostring(job) end
  job:write(frame({ jsonrpc = "2.0", id = 1, method = "initialize", params = {
    processId = vim.NIL, rootUri = vim.NIL, capabilities = vim.empty_dict(),
    clientInfo = { name = "checkhealth adaexplore" } } }))
  local exited = false
  vim.wait(timeout_ms, function()
    exited = job:is_closing() or false
    return answer ~= nil or exited
  end, 50)
  local seconds = (vim.uv.hrtime() - started) / 1e9
  if answer then                                   -- a clean end: shutdown, exit
    job:write(frame({ jsonrpc = "2.0", id = 2, method = "shutdown" }))
    job:write(frame({ jsonrpc = "2.0", method = "exit" }))
    job:write(nil)
    if job:wait(3000).code == 124 then job:kill("sigkill") end
  else
    job:kill("sigkill")
    job:wait(1000)
  end
  local errors = vim.trim(table.concat(stderr))
  if not answer then
    local why = exited and "the server exited before answering initialize"
      or ("no answer to initialize in " .. timeout_ms / 1000 .. " s")
    return nil, why .. (errors ~= "" and (":\n" .. errors) or "")
  end
  if answer.error then return nil, "initialize failed: " .. vim.inspect(answer.error) end
  return answer.result, seconds
end

local function check_neovim()
  health.start("AdaExplore: Neovim")
  local v = vim.version()
  local version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.11") == 0 then
    health.error("Neovim " .. version .. " is too old: AdaExplore needs 0.11 or newer "
                 .. "(vim.lsp.config and vim.lsp.enable)")
  else
    health.ok("Neovim " .. version .. (require("adaexplore.lens").managed
      and " (code lenses kept up to date by Neovim)" or " (code lenses refreshed by the helper)"))
  end
end

--- The Python section; returns that Python when the server's packages are there.
local function check_python(python)
  health.start("AdaExplore: Python")
  if vim.fn.executable(python) == 0 then
    health.error("Python not found: " .. python .. " is not an executable file or a command on PATH", { CHOOSE })
    return nil
  end
  local found, why = probe(python, PACKAGES_PROBE, 30000)
  if not found then
    health.error(python .. " could not be run as Python: " .. why, { CHOOSE })
    return nil
  end
  health.ok(string.format("Python %s: %s", found.version, found.executable))
  if #found.missing > 0 then
    health.error("adaexplore[server] is not importable there: missing " .. table.concat(found.missing, ", "),
                 { INSTALL, CHOOSE })
    return nil
  end
  health.ok("adaexplore[server] is importable (adaexplore_server, pygls, lsprotocol, tree-sitter, diskcache)")
  return python
end

local function check_server(cmd, runnable)
  health.start("AdaExplore: language server")
  if not runnable then
    health.error("not started: " .. table.concat(cmd, " ") .. " cannot work until the Python above is fixed")
    return
  end
  local result, detail = initialize(cmd, 30000)
  if not result then
    health.error(table.concat(cmd, " ") .. ": " .. detail, { INSTALL })
    return
  end
  local info = result.serverInfo or {}
  health.ok(string.format("%s answered initialize in %.1f s (%s %s)", table.concat(cmd, " "), detail,
                          info.name or "server", info.version or ""))
  local capabilities = result.capabilities or {}
  if capabilities.codeLensProvider and capabilities.codeActionProvider then
    health.ok("it offers code lenses and code actions")
  else
    health.warn("it offers no code lenses or code actions: is this the AdaExplore server?")
  end
end

local function check_device(python)
  health.start("AdaExplore: device")
  local found, why = probe(python, DEVICE_PROBE, 120000)
  if not found then
    health.error("torch and triton could not be checked: " .. why)
  elseif found.error then
    health.error("searches cannot run: torch or triton does not import in " .. python .. " (" .. found.error .. ")",
                 { "install torch (2.4 or newer) and triton into that Python" })
  elseif #found.gpus > 0 then
    health.ok(string.format("GPU: %s (torch %s, triton %s): searches are timed",
                            table.concat(found.gpus, ", "), found.torch, found.triton))
  else
    health.info(string.format("no CUDA GPU visible (torch %s, triton %s): searches check validity in the "
                              .. "Triton interpreter and are not timed", found.torch, found.triton))
  end
end

function M.check()
  check_neovim()
  local cmd = server_cmd()
  local python = check_python(python_of(cmd))
  check_server(cmd, python ~= nil or cmd[2] ~= "-m")
  if python then check_device(python) end
end

return M
