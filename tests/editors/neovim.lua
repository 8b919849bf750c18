-- Neovim's own LSP client against `override-guard lsp`, headless (Neovim 0.7 or newer).
-- Started by tests/machine/editor.rs as `nvim --headless --clean -u RECIPE -c ... FILE` in
-- a copy of examples/app, where RECIPE is a recipe of docs/editors.md as written and this
-- file runs after it, with OG_OUT (where to write what it saw, JSON). It waits for the
-- client the recipe attaches to the buffer, then for the diagnostics, asks for a hover and
-- the inlay hints, applies the code action that adds every missing warning comment, and
-- writes the buffer's new text.
local out = os.getenv("OG_OUT")
local seen = { steps = {} }

local function finish()
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(seen))
  f:close()
  vim.cmd("qa!")
end

local function step(name, ok)
  table.insert(seen.steps, name)
  if not ok then
    seen.failed = name
    finish()
  end
end

-- This file runs after the recipe and the file are loaded: the work starts when the editor has.
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local buf = vim.api.nvim_get_current_buf()
  -- The recipe's client: `get_clients` from 0.10, `buf_get_clients` before.
  local function clients()
    if vim.lsp.get_clients then
      return vim.lsp.get_clients({ bufnr = buf })
    end
    return vim.lsp.buf_get_clients(buf)
  end
  step("the recipe attached a client", vim.wait(30000, function()
    return next(clients()) ~= nil
  end, 20))

  step("diagnostics", vim.wait(30000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 20))
  seen.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(seen.diagnostics, { line = d.lnum + 1, code = d.code, severity = d.severity, message = d.message })
  end

  local uri = vim.uri_from_bufnr(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local target
  for i, l in ipairs(lines) do
    if l:match("^%s*instance_type%s*=") then
      target = { line = i - 1, character = (l:find("instance_type") or 1) - 1 }
      break
    end
  end
  step("an overridden attribute", target ~= nil)

  local function ask(method, params)
    local replies = vim.lsp.buf_request_sync(buf, method, params, 30000) or {}
    for _, r in pairs(replies) do
      if r.result then
        return r.result
      end
    end
  end

  local hover = ask("textDocument/hover", { textDocument = { uri = uri }, position = target })
  step("hover", hover ~= nil)
  seen.hover = hover.contents.value

  local hints = ask("textDocument/inlayHint", {
    textDocument = { uri = uri },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = #lines, character = 0 } },
  }) or {}
  seen.hints = {}
  for _, h in ipairs(hints) do
    table.insert(seen.hints, { line = h.position.line + 1, label = h.label })
  end
  step("hints", #seen.hints > 0)

  local first = seen.diagnostics[1].line - 1
  local actions = ask("textDocument/codeAction", {
    textDocument = { uri = uri },
    range = { start = { line = first, character = 0 }, ["end"] = { line = first, character = 0 } },
    context = { diagnostics = {} },
  }) or {}
  seen.actions = {}
  local chosen
  for _, a in ipairs(actions) do
    table.insert(seen.actions, a.title)
    if a.title == "Add the warning comment" then
      chosen = a
    end
  end
  step("the comment action", chosen ~= nil)
  vim.lsp.util.apply_workspace_edit(chosen.edit, "utf-16")
  seen.after = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
  step("applied", true)
  finish()
end })
