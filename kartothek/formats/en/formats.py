"""English dates in the admin: "4 Dec 2026, 15:44" and "2026-12-04 15:44", a 24-hour clock
and no full stops of their own (Django's US defaults gave "Dec. 4, 2026, 3:44 p.m." and, at a
sentence's end, "12/04/2026 3:44 p.m.."). Input formats stay Django's (found there)."""

DATE_FORMAT = "j M Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j M Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
