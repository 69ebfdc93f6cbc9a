-- Drives the AdaExplore language server from headless Neovim (a second real LSP client):
-- open a module, take the "Optimize" code action, follow the progress, read the code lens, apply the result
-- (confirming the server's question about an untimed result; Neovim applies the server's workspace/applyEdit
-- itself), then write what happened to a JSON file.
-- Arguments (environment): ADAEXPLORE_PYTHON, ADAEXPLORE_FILE, ADAEXPLORE_CACHE, ADAEXPLORE_REPORT.
local python = os.getenv("ADAEXPLORE_PYTHON")
local file = os.getenv("ADAEXPLORE_FILE")
local cache = os.getenv("ADAEXPLORE_CACHE")
local report_path = os.getenv("ADAEXPLORE_REPORT")
local report = { progress = {}, errors = {} }

local function finish()
  local f = assert(io.open(report_path, "w"))
  f:write(vim.json.encode(report))
  f:close()
  vim.cmd("qa!")
end

local function fail(message)
  table.insert(report.errors, message)
  finish()
end

vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(ev)
    local value = ev.data.params.value
    table.insert(report.progress, { kind = value.kind, message = value.message, percentage = value.percentage })
  end,
})

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local settings = { adaexplore = { steps = 2, device = "cpu", cacheDir = cache } }
-- The server asks before applying a result that was never timed (window/showMessageRequest); answer as a
-- user who picks "Apply ..." would, and keep the question for the report.
report.questions = {}
local function answer_question(_, params)
  local titles = vim.tbl_map(function(action) return action.title end, params.actions or {})
  table.insert(report.questions, { message = params.message, actions = titles })
  for _, action in ipairs(params.actions or {}) do
    if action.title:match("^Apply") then return action end
  end
  return vim.NIL
end
local client_id = vim.lsp.start({
  name = "adaexplore",
  cmd = { python, "-m", "adaexplore_server" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
  init_options = settings.adaexplore,
  settings = settings,
  handlers = { ["window/showMessageRequest"] = answer_question },
})
if not vim.wait(20000, function() return vim.lsp.get_client_by_id(client_id).initialized end, 50) then
  return fail("the server did not initialize")
end
local client = vim.lsp.get_client_by_id(client_id)

local function request(method, params)
  local response = client:request_sync(method, params, 60000, bufnr)
  if not response then fail(method .. ": no response") end
  if response.err then fail(method .. ": " .. vim.inspect(response.err)) end
  return response.result
end

local function command(name, arguments)
  return request("workspace/executeCommand", { command = name, arguments = arguments })
end

local function lens_titles()
  local titles = {}
  for _, lens in ipairs(request("textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }) or {}) do
    table.insert(titles, lens.command and lens.command.title or "")
  end
  return titles
end

-- the code action at the cursor inside forward
local line = vim.fn.search("def forward") - 1
local actions = request("textDocument/codeAction", {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  range = { start = { line = line, character = 8 }, ["end"] = { line = line, character = 8 } },
  context = { diagnostics = {} },
})
report.actions = {}
local optimize
for _, action in ipairs(actions or {}) do
  table.insert(report.actions, action.title)
  if action.title:match("^Optimize") then optimize = action end
end
if not optimize then return fail("no Optimize code action") end
report.lens_before = lens_titles()
local job = command(optimize.command.command, optimize.command.arguments)
if not job or not job.id then return fail("optimize returned " .. vim.inspect(job)) end

local finished
vim.wait(240000, function()
  for _, j in ipairs(command("adaexplore.listJobs", {}) or {}) do
    if j.id == job.id and j.state ~= "queued" and j.state ~= "running" then finished = j end
  end
  return finished ~= nil
end, 250)
if not finished then return fail("the job did not finish") end
report.job = finished
vim.wait(500, function() return false end)          -- let the progress end and diagnostics arrive
report.lens_after = lens_titles()
report.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do table.insert(report.diagnostics, d.message) end

report.apply = command("adaexplore.apply", { vim.uri_from_bufnr(bufnr), "Scale" })
vim.wait(1000, function()
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n"):find("class ScaleReference") ~= nil
end, 50)
report.text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
vim.api.nvim_buf_call(bufnr, function() vim.cmd("silent undo") end)   -- one undo step takes it all back
report.after_undo = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
finish()
