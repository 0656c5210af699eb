-- Product images (docs/api.md section 23). One row per uploaded image;
-- the bytes are in the media store (--media-store), under "<id>/".
-- ext names the stored format (jpg, png, gif, webp); bytes and sha256 are
-- those of the stored image. A product lists an image in its medias
-- (product_medias.media_id), which media.remove checks.
CREATE TABLE medias (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT    NOT NULL UNIQUE,
	ext        TEXT    NOT NULL,
	width      INTEGER NOT NULL,
	height     INTEGER NOT NULL,
	bytes      INTEGER NOT NULL,
	sha256     TEXT    NOT NULL,
	alt        TEXT    NOT NULL,
	created_at INTEGER NOT NULL
);
