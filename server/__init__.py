"""AdaExplore language server (import name ``adaexplore_server``); never imports torch."""
