"""The contract between the engine and its readers (the language server, the editors' clients, scripts): the
events of a search job (``events.py``), the files a search leaves and how a result reads in one line
(``report.py``), and the words for a verdict's envelope (``envelope.py``). Plain Python: no torch, no triton;
the server imports only this package and ``jsonstore`` from the engine."""
