"""The admin's own date formats, where Django's defaults read badly (FORMAT_MODULE_PATH)."""
