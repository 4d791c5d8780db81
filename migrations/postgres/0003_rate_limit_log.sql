CREATE TABLE "rate_limit_log" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limit_log_key_at_idx" ON "rate_limit_log" USING btree ("key","at");