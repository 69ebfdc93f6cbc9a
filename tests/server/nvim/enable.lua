-- vim.lsp.enable("adaexplore") with no setup() call: lsp/adaexplore.lua gives the configuration and
-- plugin/adaexplore.lua the commands (nvim is started with the helper on 'runtimepath' before plugins load).
-- Open a module, wait for the server to attach and its code lens to show, write what happened as JSON.
-- Environment: ADAEXPLORE_FILE, ADAEXPLORE_REPORT.
local report = { errors = {}, version = tostring(vim.version()) }
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

local lens = require("adaexplore.lens")
report.managed = lens.managed
report.commands = vim.tbl_keys(vim.api.nvim_get_commands({}))
vim.lsp.enable("adaexplore")
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("ADAEXPLORE_FILE")))
local bufnr = vim.api.nvim_get_current_buf()
local client
if not vim.wait(30000, function()
  client = vim.lsp.get_clients({ name = "adaexplore", bufnr = bufnr })[1]
  return client ~= nil and client.initialized
end, 50) then
  return fail("the server did not attach")
end
report.cmd = client.config.cmd
report.root_dir = client.config.root_dir

--- The text of every virtual text or virtual line in the buffer: what the user sees of the lenses.
local function shown()
  local texts = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, -1, 0, -1, { details = true })) do
    local details = mark[4]
    local chunks = vim.deepcopy(details.virt_text or {})
    for _, line in ipairs(details.virt_lines or {}) do vim.list_extend(chunks, line) end
    for _, chunk in ipairs(chunks) do table.insert(texts, { line = mark[2], text = chunk[1] }) end
  end
  return texts
end

vim.wait(30000, function()
  vim.cmd("redraw")
  return #lens.get(bufnr) > 0
end, 50)
report.lenses = {}
for _, l in ipairs(lens.get(bufnr)) do
  table.insert(report.lenses, { line = l.range.start.line, title = l.command and l.command.title or "" })
end
report.shown = shown()
report.class_line = vim.fn.search("^class Model") - 1
finish()
