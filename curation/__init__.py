"""The curators' screens on the top floor: the admin site and every model admin, the
translation editor and progress pages, card previews in the admin, the print and publish
pages, the 403 page. They read and write through the content model (cards), packs and print
(exports) and play (games); nothing below imports them."""
