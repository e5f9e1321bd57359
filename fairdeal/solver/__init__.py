"""Double-dummy analysis: the compiled search (``_dds.c``) and its Python face (``dds``), the sampling bot
(``bots``) and hand review (``review``)."""
