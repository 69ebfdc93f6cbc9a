-- AdaExplore for Neovim 0.11+: the language server (python -m adaexplore_server) plus what Neovim does not
-- do on its own: refresh code lenses when a search ends (Neovim before 0.12 ignores the server's refresh
-- request), keep a progress line for the statusline, and commands to optimize, list and cancel jobs,
-- preview and apply. plugin/adaexplore.lua registers the commands and autocommands at start-up, so
-- vim.lsp.enable("adaexplore") (with lsp/adaexplore.lua) is enough; setup() also chooses Python and settings:
--
--   require("adaexplore").setup({ python = "python3", settings = { steps = 20, device = "auto" } })
local M = {}

M.status_text = ""             -- e.g. "AdaExplore: step 3/20 · best 1.42x" while a search runs
local config = require("adaexplore.config")
local lens = require("adaexplore.lens")
local CLIENT = config.name

local function client(bufnr)
  return vim.lsp.get_clients({ name = CLIENT, bufnr = bufnr })[1]
end

local function command(name, arguments, bufnr, on_result)
  local c = client(bufnr or 0)
  if not c then
    vim.notify("AdaExplore: the language server is not attached to this buffer", vim.log.levels.WARN)
    return
  end
  c:request("workspace/executeCommand", { command = name, arguments = arguments }, function(err, result)
    if err then
      vim.notify("AdaExplore: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif type(result) == "table" and result.error then
      vim.notify("AdaExplore: " .. result.error, vim.log.levels.ERROR)
    elseif on_result then
      on_result(result)
    end
  end, bufnr or 0)
end

local function refresh_lenses()
  for _, c in ipairs(vim.lsp.get_clients({ name = CLIENT })) do
    for bufnr in pairs(c.attached_buffers) do lens.refresh(bufnr) end
  end
end

--- The module class under the cursor: (uri, class name) from the server's code action, or nil.
local function module_at_cursor(bufnr, callback)
  local c = client(bufnr)
  if not c then return callback(nil) end
  local pos = vim.api.nvim_win_get_cursor(0)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = pos[1] - 1, character = pos[2] }, ["end"] = { line = pos[1] - 1, character = pos[2] } },
    context = { diagnostics = {} },
  }
  c:request("textDocument/codeAction", params, function(_, actions)
    for _, action in ipairs(actions or {}) do
      local cmd = action.command
      if type(cmd) == "table" and cmd.arguments and #cmd.arguments == 2 and cmd.command:match("^adaexplore%.") then
        return callback(cmd.arguments[1], cmd.arguments[2])
      end
    end
    callback(nil)
  end, bufnr)
end

function M.optimize()
  local bufnr = vim.api.nvim_get_current_buf()
  module_at_cursor(bufnr, function(uri, class)
    if not uri then
      return vim.notify("AdaExplore: put the cursor in an nn.Module class with example inputs", vim.log.levels.INFO)
    end
    command("adaexplore.optimize", { uri, class }, bufnr, function(job)
      M.last_job = job
      refresh_lenses()
    end)
  end)
end

local function with_target(name)
  local bufnr = vim.api.nvim_get_current_buf()
  module_at_cursor(bufnr, function(uri, class)
    if uri then command(name, { uri, class }, bufnr, function() refresh_lenses() end) end
  end)
end

function M.preview() with_target("adaexplore.preview") end   -- the server shows the preview file

function M.apply() with_target("adaexplore.apply") end       -- Neovim applies the edit; undo reverts it

function M.jobs(callback)
  command("adaexplore.listJobs", {}, 0, function(jobs)
    if callback then return callback(jobs or {}) end
    local lines = {}
    for _, j in ipairs(jobs or {}) do
      table.insert(lines, string.format("%s  %s  %s  step %d/%d  %s", j.id, j.class, j.state, j.step, j.steps, j.message))
    end
    vim.notify(#lines > 0 and table.concat(lines, "\n") or "AdaExplore: no jobs", vim.log.levels.INFO)
  end)
end

function M.cancel(job_id)
  if job_id then return command("adaexplore.cancelJob", { job_id }, 0, function() refresh_lenses() end) end
  M.jobs(function(jobs)
    local active = vim.tbl_filter(function(j) return j.state == "queued" or j.state == "running" end, jobs)
    if #active == 0 then return vim.notify("AdaExplore: no running job", vim.log.levels.INFO) end
    vim.ui.select(active, {
      prompt = "Cancel which AdaExplore job?",
      format_item = function(j) return string.format("%s (%s, step %d/%d)", j.class, j.state, j.step, j.steps) end,
    }, function(j) if j then M.cancel(j.id) end end)
  end)
end

local COMMANDS = {
  AdaExploreOptimize = { function() M.optimize() end, "search for a Triton replacement of the module at the cursor" },
  AdaExplorePreview = { function() M.preview() end, "open the file the result would give" },
  AdaExploreApply = { function() M.apply() end, "apply the result (the original class stays as <Class>Reference)" },
  AdaExploreJobs = { function() M.jobs() end, "list this session's jobs" },
  AdaExploreCancel = { function() M.cancel() end, "cancel a running job" },
}
M.commands = vim.tbl_keys(COMMANDS)
table.sort(M.commands)

local function on_progress(ev)
  local c = vim.lsp.get_client_by_id(ev.data.client_id)
  if not c or c.name ~= CLIENT then return end
  local value = ev.data.params.value or {}
  if value.kind == "end" then
    M.status_text = ""
    refresh_lenses()                     -- the result is there: show its lens now
  else
    M.status_text = "AdaExplore: " .. (value.message or value.title or "")
  end
  vim.cmd.redrawstatus()
end

--- The commands and autocommands (lenses, progress); plugin/adaexplore.lua calls this at start-up. Safe to
--- call again: it replaces what an earlier call made.
function M.register()
  local group = vim.api.nvim_create_augroup("adaexplore", { clear = true })
  vim.api.nvim_create_autocmd("LspProgress", { group = group, callback = on_progress })
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(ev)
      local c = vim.lsp.get_client_by_id(ev.data.client_id)
      if c and c.name == CLIENT then lens.attach(ev.buf) end
    end,
  })
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
    group = group, pattern = "*.py", callback = function(ev)
      if client(ev.buf) then lens.changed(ev.buf) end
    end,
  })
  for name, spec in pairs(COMMANDS) do
    vim.api.nvim_create_user_command(name, spec[1], { desc = "AdaExplore: " .. spec[2] })
  end
end

--- Configure the server (opts: python, cmd, settings; see :help adaexplore-setup) and enable it.
function M.setup(opts)
  vim.lsp.config(CLIENT, config.server(opts))
  vim.lsp.enable(CLIENT)
  M.register()
end

--- For the statusline: %{v:lua.require'adaexplore'.status()}
function M.status() return M.status_text end

return M
