"""The mental-poker protocol in JavaScript (the ``*.js`` files, run by the offline page and under Node) and the
bridge that seats a JavaScript player at a Python table (``node_player``)."""
