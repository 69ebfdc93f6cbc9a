-- Drives the Neovim helper (neovim/lua/adaexplore) headless: setup, :AdaExploreOptimize at the cursor, the
-- lens refreshed by the helper when the search ends, the status line, then a second job cancelled with the
-- helper. Environment: ADAEXPLORE_PYTHON, ADAEXPLORE_FILE, ADAEXPLORE_CACHE, ADAEXPLORE_REPORT, ADAEXPLORE_RTP.
vim.opt.runtimepath:prepend(os.getenv("ADAEXPLORE_RTP"))
local report = { errors = {}, statuses = {} }
local function finish()
  local f = assert(io.open(os.getenv("ADAEXPLORE_REPORT"), "w"))
  f:write(vim.json.encode(report))
  f:close()
  vim.cmd("qa!")
end
local function fail(message)
  table.insert(report.errors, message)
  finish()
end

local ada = require("adaexplore")
local lens = require("adaexplore.lens")   -- the lenses Neovim shows, whatever its version
ada.setup({ python = os.getenv("ADAEXPLORE_PYTHON"),
            settings = { steps = 2, device = "cpu", cacheDir = os.getenv("ADAEXPLORE_CACHE") } })
vim.api.nvim_create_autocmd("LspProgress", { callback = function()
  if ada.status() ~= "" then table.insert(report.statuses, ada.status()) end
end })
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("ADAEXPLORE_FILE")))
local bufnr = vim.api.nvim_get_current_buf()
if not vim.wait(20000, function() return #vim.lsp.get_clients({ name = "adaexplore", bufnr = bufnr }) > 0 end, 50) then
  return fail("the helper did not attach the server")
end
vim.fn.cursor(vim.fn.search("def forward"), 9)

local function job_state(id)
  local state
  ada.jobs(function(jobs) for _, j in ipairs(jobs) do if j.id == id then state = j end end end)
  vim.wait(5000, function() return state ~= nil end, 20)
  return state
end

--- The job's summary once it is no longer queued or running (nil after timeout_ms).
local function wait_finished(id, timeout_ms)
  local finished
  vim.wait(timeout_ms, function()
    local s = job_state(id)
    if s and s.state ~= "queued" and s.state ~= "running" then finished = s end
    return finished ~= nil
  end, 250)
  return finished
end

vim.cmd("AdaExploreOptimize")
if not vim.wait(20000, function() return ada.last_job ~= nil end, 50) then return fail("no job started") end
local first = ada.last_job
local done = wait_finished(first.id, 240000)
if not done then return fail("the job did not finish") end
report.first = done
-- the helper refreshes the lenses when the progress ends; no manual refresh here
vim.wait(5000, function()
  for _, item in ipairs(lens.get(bufnr)) do
    if item.command and item.command.title:find("validated") then return true end
  end
  return false
end, 50)
report.lenses = {}
for _, item in ipairs(lens.get(bufnr)) do
  table.insert(report.lenses, item.command and item.command.title or "")
end
-- the progress's end clears the status line (on 0.12 the lens may show before that end arrives)
vim.wait(5000, function() return ada.status() == "" end, 20)
report.status_after = ada.status()

ada.last_job = nil
vim.cmd("AdaExploreOptimize")
if not vim.wait(20000, function() return ada.last_job ~= nil end, 50) then return fail("no second job") end
local second = ada.last_job
ada.cancel(second.id)
report.second = wait_finished(second.id, 60000)
finish()
