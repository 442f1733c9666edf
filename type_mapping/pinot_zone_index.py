"""The zone ids Pinot's ``TimeZoneKey`` knows (the ids of ``zone-index.properties`` at apache/pinot 210c2951e720),
data for ``datetime_formats.pinot_zone_key``: ``dateTrunc`` with a zone takes only these (then Joda's rules)."""

ZONE_INDEX_IDS = frozenset("""
+00:01 +00:02 +00:03 +00:04 +00:05 +00:06 +00:07 +00:08 +00:09 +00:10 +00:11 +00:12 +00:13 +00:14 +00:15 +00:16
+00:17 +00:18 +00:19 +00:20 +00:21 +00:22 +00:23 +00:24 +00:25 +00:26 +00:27 +00:28 +00:29 +00:30 +00:31 +00:32
+00:33 +00:34 +00:35 +00:36 +00:37 +00:38 +00:39 +00:40 +00:41 +00:42 +00:43 +00:44 +00:45 +00:46 +00:47 +00:48
+00:49 +00:50 +00:51 +00:52 +00:53 +00:54 +00:55 +00:56 +00:57 +00:58 +00:59 +01:00 +01:01 +01:02 +01:03 +01:04
+01:05 +01:06 +01:07 +01:08 +01:09 +01:10 +01:11 +01:12 +01:13 +01:14 +01:15 +01:16 +01:17 +01:18 +01:19 +01:20
+01:21 +01:22 +01:23 +01:24 +01:25 +01:26 +01:27 +01:28 +01:29 +01:30 +01:31 +01:32 +01:33 +01:34 +01:35 +01:36
+01:37 +01:38 +01:39 +01:40 +01:41 +01:42 +01:43 +01:44 +01:45 +01:46 +01:47 +01:48 +01:49 +01:50 +01:51 +01:52
+01:53 +01:54 +01:55 +01:56 +01:57 +01:58 +01:59 +02:00 +02:01 +02:02 +02:03 +02:04 +02:05 +02:06 +02:07 +02:08
+02:09 +02:10 +02:11 +02:12 +02:13 +02:14 +02:15 +02:16 +02:17 +02:18 +02:19 +02:20 +02:21 +02:22 +02:23 +02:24
+02:25 +02:26 +02:27 +02:28 +02:29 +02:30 +02:31 +02:32 +02:33 +02:34 +02:35 +02:36 +02:37 +02:38 +02:39 +02:40
+02:41 +02:42 +02:43 +02:44 +02:45 +02:46 +02:47 +02:48 +02:49 +02:50 +02:51 +02:52 +02:53 +02:54 +02:55 +02:56
+02:57 +02:58 +02:59 +03:00 +03:01 +03:02 +03:03 +03:04 +03:05 +03:06 +03:07 +03:08 +03:09 +03:10 +03:11 +03:12
+03:13 +03:14 +03:15 +03:16 +03:17 +03:18 +03:19 +03:20 +03:21 +03:22 +03:23 +03:24 +03:25 +03:26 +03:27 +03:28
+03:29 +03:30 +03:31 +03:32 +03:33 +03:34 +03:35 +03:36 +03:37 +03:38 +03:39 +03:40 +03:41 +03:42 +03:43 +03:44
+03:45 +03:46 +03:47 +03:48 +03:49 +03:50 +03:51 +03:52 +03:53 +03:54 +03:55 +03:56 +03:57 +03:58 +03:59 +04:00
+04:01 +04:02 +04:03 +04:04 +04:05 +04:06 +04:07 +04:08 +04:09 +04:10 +04:11 +04:12 +04:13 +04:14 +04:15 +04:16
+04:17 +04:18 +04:19 +04:20 +04:21 +04:22 +04:23 +04:24 +04:25 +04:26 +04:27 +04:28 +04:29 +04:30 +04:31 +04:32
+04:33 +04:34 +04:35 +04:36 +04:37 +04:38 +04:39 +04:40 +04:41 +04:42 +04:43 +04:44 +04:45 +04:46 +04:47 +04:48
+04:49 +04:50 +04:51 +04:52 +04:53 +04:54 +04:55 +04:56 +04:57 +04:58 +04:59 +05:00 +05:01 +05:02 +05:03 +05:04
+05:05 +05:06 +05:07 +05:08 +05:09 +05:10 +05:11 +05:12 +05:13 +05:14 +05:15 +05:16 +05:17 +05:18 +05:19 +05:20
+05:21 +05:22 +05:23 +05:24 +05:25 +05:26 +05:27 +05:28 +05:29 +05:30 +05:31 +05:32 +05:33 +05:34 +05:35 +05:36
+05:37 +05:38 +05:39 +05:40 +05:41 +05:42 +05:43 +05:44 +05:45 +05:46 +05:47 +05:48 +05:49 +05:50 +05:51 +05:52
+05:53 +05:54 +05:55 +05:56 +05:57 +05:58 +05:59 +06:00 +06:01 +06:02 +06:03 +06:04 +06:05 +06:06 +06:07 +06:08
+06:09 +06:10 +06:11 +06:12 +06:13 +06:14 +06:15 +06:16 +06:17 +06:18 +06:19 +06:20 +06:21 +06:22 +06:23 +06:24
+06:25 +06:26 +06:27 +06:28 +06:29 +06:30 +06:31 +06:32 +06:33 +06:34 +06:35 +06:36 +06:37 +06:38 +06:39 +06:40
+06:41 +06:42 +06:43 +06:44 +06:45 +06:46 +06:47 +06:48 +06:49 +06:50 +06:51 +06:52 +06:53 +06:54 +06:55 +06:56
+06:57 +06:58 +06:59 +07:00 +07:01 +07:02 +07:03 +07:04 +07:05 +07:06 +07:07 +07:08 +07:09 +07:10 +07:11 +07:12
+07:13 +07:14 +07:15 +07:16 +07:17 +07:18 +07:19 +07:20 +07:21 +07:22 +07:23 +07:24 +07:25 +07:26 +07:27 +07:28
+07:29 +07:30 +07:31 +07:32 +07:33 +07:34 +07:35 +07:36 +07:37 +07:38 +07:39 +07:40 +07:41 +07:42 +07:43 +07:44
+07:45 +07:46 +07:47 +07:48 +07:49 +07:50 +07:51 +07:52 +07:53 +07:54 +07:55 +07:56 +07:57 +07:58 +07:59 +08:00
+08:01 +08:02 +08:03 +08:04 +08:05 +08:06 +08:07 +08:08 +08:09 +08:10 +08:11 +08:12 +08:13 +08:14 +08:15 +08:16
+08:17 +08:18 +08:19 +08:20 +08:21 +08:22 +08:23 +08:24 +08:25 +08:26 +08:27 +08:28 +08:29 +08:30 +08:31 +08:32
+08:33 +08:34 +08:35 +08:36 +08:37 +08:38 +08:39 +08:40 +08:41 +08:42 +08:43 +08:44 +08:45 +08:46 +08:47 +08:48
+08:49 +08:50 +08:51 +08:52 +08:53 +08:54 +08:55 +08:56 +08:57 +08:58 +08:59 +09:00 +09:01 +09:02 +09:03 +09:04
+09:05 +09:06 +09:07 +09:08 +09:09 +09:10 +09:11 +09:12 +09:13 +09:14 +09:15 +09:16 +09:17 +09:18 +09:19 +09:20
+09:21 +09:22 +09:23 +09:24 +09:25 +09:26 +09:27 +09:28 +09:29 +09:30 +09:31 +09:32 +09:33 +09:34 +09:35 +09:36
+09:37 +09:38 +09:39 +09:40 +09:41 +09:42 +09:43 +09:44 +09:45 +09:46 +09:47 +09:48 +09:49 +09:50 +09:51 +09:52
+09:53 +09:54 +09:55 +09:56 +09:57 +09:58 +09:59 +10:00 +10:01 +10:02 +10:03 +10:04 +10:05 +10:06 +10:07 +10:08
+10:09 +10:10 +10:11 +10:12 +10:13 +10:14 +10:15 +10:16 +10:17 +10:18 +10:19 +10:20 +10:21 +10:22 +10:23 +10:24
+10:25 +10:26 +10:27 +10:28 +10:29 +10:30 +10:31 +10:32 +10:33 +10:34 +10:35 +10:36 +10:37 +10:38 +10:39 +10:40
+10:41 +10:42 +10:43 +10:44 +10:45 +10:46 +10:47 +10:48 +10:49 +10:50 +10:51 +10:52 +10:53 +10:54 +10:55 +10:56
+10:57 +10:58 +10:59 +11:00 +11:01 +11:02 +11:03 +11:04 +11:05 +11:06 +11:07 +11:08 +11:09 +11:10 +11:11 +11:12
+11:13 +11:14 +11:15 +11:16 +11:17 +11:18 +11:19 +11:20 +11:21 +11:22 +11:23 +11:24 +11:25 +11:26 +11:27 +11:28
+11:29 +11:30 +11:31 +11:32 +11:33 +11:34 +11:35 +11:36 +11:37 +11:38 +11:39 +11:40 +11:41 +11:42 +11:43 +11:44
+11:45 +11:46 +11:47 +11:48 +11:49 +11:50 +11:51 +11:52 +11:53 +11:54 +11:55 +11:56 +11:57 +11:58 +11:59 +12:00
+12:01 +12:02 +12:03 +12:04 +12:05 +12:06 +12:07 +12:08 +12:09 +12:10 +12:11 +12:12 +12:13 +12:14 +12:15 +12:16
+12:17 +12:18 +12:19 +12:20 +12:21 +12:22 +12:23 +12:24 +12:25 +12:26 +12:27 +12:28 +12:29 +12:30 +12:31 +12:32
+12:33 +12:34 +12:35 +12:36 +12:37 +12:38 +12:39 +12:40 +12:41 +12:42 +12:43 +12:44 +12:45 +12:46 +12:47 +12:48
+12:49 +12:50 +12:51 +12:52 +12:53 +12:54 +12:55 +12:56 +12:57 +12:58 +12:59 +13:00 +13:01 +13:02 +13:03 +13:04
+13:05 +13:06 +13:07 +13:08 +13:09 +13:10 +13:11 +13:12 +13:13 +13:14 +13:15 +13:16 +13:17 +13:18 +13:19 +13:20
+13:21 +13:22 +13:23 +13:24 +13:25 +13:26 +13:27 +13:28 +13:29 +13:30 +13:31 +13:32 +13:33 +13:34 +13:35 +13:36
+13:37 +13:38 +13:39 +13:40 +13:41 +13:42 +13:43 +13:44 +13:45 +13:46 +13:47 +13:48 +13:49 +13:50 +13:51 +13:52
+13:53 +13:54 +13:55 +13:56 +13:57 +13:58 +13:59 +14:00 -00:01 -00:02 -00:03 -00:04 -00:05 -00:06 -00:07 -00:08
-00:09 -00:10 -00:11 -00:12 -00:13 -00:14 -00:15 -00:16 -00:17 -00:18 -00:19 -00:20 -00:21 -00:22 -00:23 -00:24
-00:25 -00:26 -00:27 -00:28 -00:29 -00:30 -00:31 -00:32 -00:33 -00:34 -00:35 -00:36 -00:37 -00:38 -00:39 -00:40
-00:41 -00:42 -00:43 -00:44 -00:45 -00:46 -00:47 -00:48 -00:49 -00:50 -00:51 -00:52 -00:53 -00:54 -00:55 -00:56
-00:57 -00:58 -00:59 -01:00 -01:01 -01:02 -01:03 -01:04 -01:05 -01:06 -01:07 -01:08 -01:09 -01:10 -01:11 -01:12
-01:13 -01:14 -01:15 -01:16 -01:17 -01:18 -01:19 -01:20 -01:21 -01:22 -01:23 -01:24 -01:25 -01:26 -01:27 -01:28
-01:29 -01:30 -01:31 -01:32 -01:33 -01:34 -01:35 -01:36 -01:37 -01:38 -01:39 -01:40 -01:41 -01:42 -01:43 -01:44
-01:45 -01:46 -01:47 -01:48 -01:49 -01:50 -01:51 -01:52 -01:53 -01:54 -01:55 -01:56 -01:57 -01:58 -01:59 -02:00
-02:01 -02:02 -02:03 -02:04 -02:05 -02:06 -02:07 -02:08 -02:09 -02:10 -02:11 -02:12 -02:13 -02:14 -02:15 -02:16
-02:17 -02:18 -02:19 -02:20 -02:21 -02:22 -02:23 -02:24 -02:25 -02:26 -02:27 -02:28 -02:29 -02:30 -02:31 -02:32
-02:33 -02:34 -02:35 -02:36 -02:37 -02:38 -02:39 -02:40 -02:41 -02:42 -02:43 -02:44 -02:45 -02:46 -02:47 -02:48
-02:49 -02:50 -02:51 -02:52 -02:53 -02:54 -02:55 -02:56 -02:57 -02:58 -02:59 -03:00 -03:01 -03:02 -03:03 -03:04
-03:05 -03:06 -03:07 -03:08 -03:09 -03:10 -03:11 -03:12 -03:13 -03:14 -03:15 -03:16 -03:17 -03:18 -03:19 -03:20
-03:21 -03:22 -03:23 -03:24 -03:25 -03:26 -03:27 -03:28 -03:29 -03:30 -03:31 -03:32 -03:33 -03:34 -03:35 -03:36
-03:37 -03:38 -03:39 -03:40 -03:41 -03:42 -03:43 -03:44 -03:45 -03:46 -03:47 -03:48 -03:49 -03:50 -03:51 -03:52
-03:53 -03:54 -03:55 -03:56 -03:57 -03:58 -03:59 -04:00 -04:01 -04:02 -04:03 -04:04 -04:05 -04:06 -04:07 -04:08
-04:09 -04:10 -04:11 -04:12 -04:13 -04:14 -04:15 -04:16 -04:17 -04:18 -04:19 -04:20 -04:21 -04:22 -04:23 -04:24
-04:25 -04:26 -04:27 -04:28 -04:29 -04:30 -04:31 -04:32 -04:33 -04:34 -04:35 -04:36 -04:37 -04:38 -04:39 -04:40
-04:41 -04:42 -04:43 -04:44 -04:45 -04:46 -04:47 -04:48 -04:49 -04:50 -04:51 -04:52 -04:53 -04:54 -04:55 -04:56
-04:57 -04:58 -04:59 -05:00 -05:01 -05:02 -05:03 -05:04 -05:05 -05:06 -05:07 -05:08 -05:09 -05:10 -05:11 -05:12
-05:13 -05:14 -05:15 -05:16 -05:17 -05:18 -05:19 -05:20 -05:21 -05:22 -05:23 -05:24 -05:25 -05:26 -05:27 -05:28
-05:29 -05:30 -05:31 -05:32 -05:33 -05:34 -05:35 -05:36 -05:37 -05:38 -05:39 -05:40 -05:41 -05:42 -05:43 -05:44
-05:45 -05:46 -05:47 -05:48 -05:49 -05:50 -05:51 -05:52 -05:53 -05:54 -05:55 -05:56 -05:57 -05:58 -05:59 -06:00
-06:01 -06:02 -06:03 -06:04 -06:05 -06:06 -06:07 -06:08 -06:09 -06:10 -06:11 -06:12 -06:13 -06:14 -06:15 -06:16
-06:17 -06:18 -06:19 -06:20 -06:21 -06:22 -06:23 -06:24 -06:25 -06:26 -06:27 -06:28 -06:29 -06:30 -06:31 -06:32
-06:33 -06:34 -06:35 -06:36 -06:37 -06:38 -06:39 -06:40 -06:41 -06:42 -06:43 -06:44 -06:45 -06:46 -06:47 -06:48
-06:49 -06:50 -06:51 -06:52 -06:53 -06:54 -06:55 -06:56 -06:57 -06:58 -06:59 -07:00 -07:01 -07:02 -07:03 -07:04
-07:05 -07:06 -07:07 -07:08 -07:09 -07:10 -07:11 -07:12 -07:13 -07:14 -07:15 -07:16 -07:17 -07:18 -07:19 -07:20
-07:21 -07:22 -07:23 -07:24 -07:25 -07:26 -07:27 -07:28 -07:29 -07:30 -07:31 -07:32 -07:33 -07:34 -07:35 -07:36
-07:37 -07:38 -07:39 -07:40 -07:41 -07:42 -07:43 -07:44 -07:45 -07:46 -07:47 -07:48 -07:49 -07:50 -07:51 -07:52
-07:53 -07:54 -07:55 -07:56 -07:57 -07:58 -07:59 -08:00 -08:01 -08:02 -08:03 -08:04 -08:05 -08:06 -08:07 -08:08
-08:09 -08:10 -08:11 -08:12 -08:13 -08:14 -08:15 -08:16 -08:17 -08:18 -08:19 -08:20 -08:21 -08:22 -08:23 -08:24
-08:25 -08:26 -08:27 -08:28 -08:29 -08:30 -08:31 -08:32 -08:33 -08:34 -08:35 -08:36 -08:37 -08:38 -08:39 -08:40
-08:41 -08:42 -08:43 -08:44 -08:45 -08:46 -08:47 -08:48 -08:49 -08:50 -08:51 -08:52 -08:53 -08:54 -08:55 -08:56
-08:57 -08:58 -08:59 -09:00 -09:01 -09:02 -09:03 -09:04 -09:05 -09:06 -09:07 -09:08 -09:09 -09:10 -09:11 -09:12
-09:13 -09:14 -09:15 -09:16 -09:17 -09:18 -09:19 -09:20 -09:21 -09:22 -09:23 -09:24 -09:25 -09:26 -09:27 -09:28
-09:29 -09:30 -09:31 -09:32 -09:33 -09:34 -09:35 -09:36 -09:37 -09:38 -09:39 -09:40 -09:41 -09:42 -09:43 -09:44
-09:45 -09:46 -09:47 -09:48 -09:49 -09:50 -09:51 -09:52 -09:53 -09:54 -09:55 -09:56 -09:57 -09:58 -09:59 -10:00
-10:01 -10:02 -10:03 -10:04 -10:05 -10:06 -10:07 -10:08 -10:09 -10:10 -10:11 -10:12 -10:13 -10:14 -10:15 -10:16
-10:17 -10:18 -10:19 -10:20 -10:21 -10:22 -10:23 -10:24 -10:25 -10:26 -10:27 -10:28 -10:29 -10:30 -10:31 -10:32
-10:33 -10:34 -10:35 -10:36 -10:37 -10:38 -10:39 -10:40 -10:41 -10:42 -10:43 -10:44 -10:45 -10:46 -10:47 -10:48
-10:49 -10:50 -10:51 -10:52 -10:53 -10:54 -10:55 -10:56 -10:57 -10:58 -10:59 -11:00 -11:01 -11:02 -11:03 -11:04
-11:05 -11:06 -11:07 -11:08 -11:09 -11:10 -11:11 -11:12 -11:13 -11:14 -11:15 -11:16 -11:17 -11:18 -11:19 -11:20
-11:21 -11:22 -11:23 -11:24 -11:25 -11:26 -11:27 -11:28 -11:29 -11:30 -11:31 -11:32 -11:33 -11:34 -11:35 -11:36
-11:37 -11:38 -11:39 -11:40 -11:41 -11:42 -11:43 -11:44 -11:45 -11:46 -11:47 -11:48 -11:49 -11:50 -11:51 -11:52
-11:53 -11:54 -11:55 -11:56 -11:57 -11:58 -11:59 -12:00 -12:01 -12:02 -12:03 -12:04 -12:05 -12:06 -12:07 -12:08
-12:09 -12:10 -12:11 -12:12 -12:13 -12:14 -12:15 -12:16 -12:17 -12:18 -12:19 -12:20 -12:21 -12:22 -12:23 -12:24
-12:25 -12:26 -12:27 -12:28 -12:29 -12:30 -12:31 -12:32 -12:33 -12:34 -12:35 -12:36 -12:37 -12:38 -12:39 -12:40
-12:41 -12:42 -12:43 -12:44 -12:45 -12:46 -12:47 -12:48 -12:49 -12:50 -12:51 -12:52 -12:53 -12:54 -12:55 -12:56
-12:57 -12:58 -12:59 -13:00 -13:01 -13:02 -13:03 -13:04 -13:05 -13:06 -13:07 -13:08 -13:09 -13:10 -13:11 -13:12
-13:13 -13:14 -13:15 -13:16 -13:17 -13:18 -13:19 -13:20 -13:21 -13:22 -13:23 -13:24 -13:25 -13:26 -13:27 -13:28
-13:29 -13:30 -13:31 -13:32 -13:33 -13:34 -13:35 -13:36 -13:37 -13:38 -13:39 -13:40 -13:41 -13:42 -13:43 -13:44
-13:45 -13:46 -13:47 -13:48 -13:49 -13:50 -13:51 -13:52 -13:53 -13:54 -13:55 -13:56 -13:57 -13:58 -13:59 -14:00
Africa/Abidjan Africa/Accra Africa/Addis_Ababa Africa/Algiers Africa/Asmara Africa/Asmera Africa/Bamako
Africa/Bangui Africa/Banjul Africa/Bissau Africa/Blantyre Africa/Brazzaville Africa/Bujumbura Africa/Cairo
Africa/Casablanca Africa/Ceuta Africa/Conakry Africa/Dakar Africa/Dar_es_Salaam Africa/Djibouti Africa/Douala
Africa/El_Aaiun Africa/Freetown Africa/Gaborone Africa/Harare Africa/Johannesburg Africa/Juba Africa/Kampala
Africa/Khartoum Africa/Kigali Africa/Kinshasa Africa/Lagos Africa/Libreville Africa/Lome Africa/Luanda
Africa/Lubumbashi Africa/Lusaka Africa/Malabo Africa/Maputo Africa/Maseru Africa/Mbabane Africa/Mogadishu
Africa/Monrovia Africa/Nairobi Africa/Ndjamena Africa/Niamey Africa/Nouakchott Africa/Ouagadougou Africa/Porto-Novo
Africa/Sao_Tome Africa/Timbuktu Africa/Tripoli Africa/Tunis Africa/Windhoek America/Adak America/Anchorage
America/Anguilla America/Antigua America/Araguaina America/Argentina/Buenos_Aires America/Argentina/Catamarca
America/Argentina/ComodRivadavia America/Argentina/Cordoba America/Argentina/Jujuy America/Argentina/La_Rioja
America/Argentina/Mendoza America/Argentina/Rio_Gallegos America/Argentina/Salta America/Argentina/San_Juan
America/Argentina/San_Luis America/Argentina/Tucuman America/Argentina/Ushuaia America/Aruba America/Asuncion
America/Atikokan America/Atka America/Bahia America/Bahia_Banderas America/Barbados America/Belem America/Belize
America/Blanc-Sablon America/Boa_Vista America/Bogota America/Boise America/Buenos_Aires America/Cambridge_Bay
America/Campo_Grande America/Cancun America/Caracas America/Catamarca America/Cayenne America/Cayman America/Chicago
America/Chihuahua America/Ciudad_Juarez America/Coral_Harbour America/Cordoba America/Costa_Rica America/Creston
America/Cuiaba America/Curacao America/Danmarkshavn America/Dawson America/Dawson_Creek America/Denver
America/Detroit America/Dominica America/Edmonton America/Eirunepe America/El_Salvador America/Ensenada
America/Fort_Nelson America/Fort_Wayne America/Fortaleza America/Glace_Bay America/Godthab America/Goose_Bay
America/Grand_Turk America/Grenada America/Guadeloupe America/Guatemala America/Guayaquil America/Guyana
America/Halifax America/Havana America/Hermosillo America/Indiana/Indianapolis America/Indiana/Knox
America/Indiana/Marengo America/Indiana/Petersburg America/Indiana/Tell_City America/Indiana/Vevay
America/Indiana/Vincennes America/Indiana/Winamac America/Indianapolis America/Inuvik America/Iqaluit
America/Jamaica America/Jujuy America/Juneau America/Kentucky/Louisville America/Kentucky/Monticello America/Knox_IN
America/Kralendijk America/La_Paz America/Lima America/Los_Angeles America/Louisville America/Lower_Princes
America/Maceio America/Managua America/Manaus America/Marigot America/Martinique America/Matamoros America/Mazatlan
America/Mendoza America/Menominee America/Merida America/Metlakatla America/Mexico_City America/Miquelon
America/Moncton America/Monterrey America/Montevideo America/Montreal America/Montserrat America/Nassau
America/New_York America/Nipigon America/Nome America/Noronha America/North_Dakota/Beulah
America/North_Dakota/Center America/North_Dakota/New_Salem America/Nuuk America/Ojinaga America/Panama
America/Pangnirtung America/Paramaribo America/Phoenix America/Port-au-Prince America/Port_of_Spain
America/Porto_Acre America/Porto_Velho America/Puerto_Rico America/Punta_Arenas America/Rainy_River
America/Rankin_Inlet America/Recife America/Regina America/Resolute America/Rio_Branco America/Rosario
America/Santa_Isabel America/Santarem America/Santiago America/Santo_Domingo America/Sao_Paulo America/Scoresbysund
America/Shiprock America/Sitka America/St_Barthelemy America/St_Johns America/St_Kitts America/St_Lucia
America/St_Thomas America/St_Vincent America/Swift_Current America/Tegucigalpa America/Thule America/Thunder_Bay
America/Tijuana America/Toronto America/Tortola America/Vancouver America/Virgin America/Whitehorse America/Winnipeg
America/Yakutat America/Yellowknife Antarctica/Casey Antarctica/Davis Antarctica/DumontDUrville Antarctica/Macquarie
Antarctica/Mawson Antarctica/McMurdo Antarctica/Palmer Antarctica/Rothera Antarctica/South_Pole Antarctica/Syowa
Antarctica/Troll Antarctica/Vostok Arctic/Longyearbyen Asia/Aden Asia/Almaty Asia/Amman Asia/Anadyr Asia/Aqtau
Asia/Aqtobe Asia/Ashgabat Asia/Ashkhabad Asia/Atyrau Asia/Baghdad Asia/Bahrain Asia/Baku Asia/Bangkok Asia/Barnaul
Asia/Beirut Asia/Bishkek Asia/Brunei Asia/Calcutta Asia/Chita Asia/Choibalsan Asia/Chongqing Asia/Chungking
Asia/Colombo Asia/Dacca Asia/Damascus Asia/Dhaka Asia/Dili Asia/Dubai Asia/Dushanbe Asia/Famagusta Asia/Gaza
Asia/Harbin Asia/Hebron Asia/Ho_Chi_Minh Asia/Hong_Kong Asia/Hovd Asia/Irkutsk Asia/Istanbul Asia/Jakarta
Asia/Jayapura Asia/Jerusalem Asia/Kabul Asia/Kamchatka Asia/Karachi Asia/Kashgar Asia/Kathmandu Asia/Katmandu
Asia/Khandyga Asia/Kolkata Asia/Krasnoyarsk Asia/Kuala_Lumpur Asia/Kuching Asia/Kuwait Asia/Macao Asia/Macau
Asia/Magadan Asia/Makassar Asia/Manila Asia/Muscat Asia/Nicosia Asia/Novokuznetsk Asia/Novosibirsk Asia/Omsk
Asia/Oral Asia/Phnom_Penh Asia/Pontianak Asia/Pyongyang Asia/Qatar Asia/Qostanay Asia/Qyzylorda Asia/Rangoon
Asia/Riyadh Asia/Saigon Asia/Sakhalin Asia/Samarkand Asia/Seoul Asia/Shanghai Asia/Singapore Asia/Srednekolymsk
Asia/Taipei Asia/Tashkent Asia/Tbilisi Asia/Tehran Asia/Tel_Aviv Asia/Thimbu Asia/Thimphu Asia/Tokyo Asia/Tomsk
Asia/Ujung_Pandang Asia/Ulaanbaatar Asia/Ulan_Bator Asia/Urumqi Asia/Ust-Nera Asia/Vientiane Asia/Vladivostok
Asia/Yakutsk Asia/Yangon Asia/Yekaterinburg Asia/Yerevan Atlantic/Azores Atlantic/Bermuda Atlantic/Canary
Atlantic/Cape_Verde Atlantic/Faeroe Atlantic/Faroe Atlantic/Jan_Mayen Atlantic/Madeira Atlantic/Reykjavik
Atlantic/South_Georgia Atlantic/St_Helena Atlantic/Stanley Australia/ACT Australia/Adelaide Australia/Brisbane
Australia/Broken_Hill Australia/Canberra Australia/Currie Australia/Darwin Australia/Eucla Australia/Hobart
Australia/LHI Australia/Lindeman Australia/Lord_Howe Australia/Melbourne Australia/NSW Australia/North
Australia/Perth Australia/Queensland Australia/South Australia/Sydney Australia/Tasmania Australia/Victoria
Australia/West Australia/Yancowinna Brazil/Acre Brazil/DeNoronha Brazil/East Brazil/West CET CST6CDT Canada/Atlantic
Canada/Central Canada/Eastern Canada/Mountain Canada/Newfoundland Canada/Pacific Canada/Saskatchewan Canada/Yukon
Chile/Continental Chile/EasterIsland Cuba EET EST5EDT Egypt Eire Europe/Amsterdam Europe/Andorra Europe/Astrakhan
Europe/Athens Europe/Belfast Europe/Belgrade Europe/Berlin Europe/Bratislava Europe/Brussels Europe/Bucharest
Europe/Budapest Europe/Busingen Europe/Chisinau Europe/Copenhagen Europe/Dublin Europe/Gibraltar Europe/Guernsey
Europe/Helsinki Europe/Isle_of_Man Europe/Istanbul Europe/Jersey Europe/Kaliningrad Europe/Kiev Europe/Kirov
Europe/Kyiv Europe/Lisbon Europe/Ljubljana Europe/London Europe/Luxembourg Europe/Madrid Europe/Malta
Europe/Mariehamn Europe/Minsk Europe/Monaco Europe/Moscow Europe/Nicosia Europe/Oslo Europe/Paris Europe/Podgorica
Europe/Prague Europe/Riga Europe/Rome Europe/Samara Europe/San_Marino Europe/Sarajevo Europe/Saratov
Europe/Simferopol Europe/Skopje Europe/Sofia Europe/Stockholm Europe/Tallinn Europe/Tirane Europe/Tiraspol
Europe/Ulyanovsk Europe/Uzhgorod Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Vilnius Europe/Volgograd
Europe/Warsaw Europe/Zagreb Europe/Zaporozhye Europe/Zurich GB GB-Eire Hongkong Iceland Indian/Antananarivo
Indian/Chagos Indian/Christmas Indian/Cocos Indian/Comoro Indian/Kerguelen Indian/Mahe Indian/Maldives
Indian/Mauritius Indian/Mayotte Indian/Reunion Iran Israel Jamaica Japan Kwajalein Libya MET MST7MDT
Mexico/BajaNorte Mexico/BajaSur Mexico/General NZ NZ-CHAT Navajo PRC PST8PDT Pacific/Apia Pacific/Auckland
Pacific/Bougainville Pacific/Chatham Pacific/Chuuk Pacific/Easter Pacific/Efate Pacific/Enderbury Pacific/Fakaofo
Pacific/Fiji Pacific/Funafuti Pacific/Galapagos Pacific/Gambier Pacific/Guadalcanal Pacific/Guam Pacific/Honolulu
Pacific/Johnston Pacific/Kanton Pacific/Kiritimati Pacific/Kosrae Pacific/Kwajalein Pacific/Majuro Pacific/Marquesas
Pacific/Midway Pacific/Nauru Pacific/Niue Pacific/Norfolk Pacific/Noumea Pacific/Pago_Pago Pacific/Palau
Pacific/Pitcairn Pacific/Pohnpei Pacific/Ponape Pacific/Port_Moresby Pacific/Rarotonga Pacific/Saipan Pacific/Samoa
Pacific/Tahiti Pacific/Tarawa Pacific/Tongatapu Pacific/Truk Pacific/Wake Pacific/Wallis Pacific/Yap Poland Portugal
ROK Singapore Turkey US/Alaska US/Aleutian US/Arizona US/Central US/East-Indiana US/Eastern US/Hawaii
US/Indiana-Starke US/Michigan US/Mountain US/Pacific US/Samoa W-SU WET
""".split())
