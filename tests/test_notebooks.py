"""Every notebook executes top to bottom at quick scale (nbclient), re-using the session's results."""
from pathlib import Path

import nbclient  # installed by the test extra: missing means an error, not a skip
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, quick_results, tmp_path, monkeypatch):
    store, _ = quick_results
    monkeypatch.setenv("GENTHEORY_RESULTS", str(store.root))
    monkeypatch.setenv("GENTHEORY_FIGURES", str(tmp_path))
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit notebooks stripped"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    assert any(o.get("output_type") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
