variable "project_id" {
  description = "The Google Cloud project to deploy into."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{4,28}[a-z0-9]$", var.project_id))
    error_message = "project_id must be a valid project id (6-30 lowercase letters, digits or hyphens)."
  }
}

variable "region" {
  description = "Region of Cloud Run, Cloud Tasks, Artifact Registry and the image bucket."
  type        = string
  default     = "europe-west1"

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]$", var.region))
    error_message = "region must look like europe-west1."
  }
}

variable "firestore_location" {
  description = "Location of the Firestore database (a region or a multi-region such as eur3)."
  type        = string
  default     = "eur3"
}

variable "domain" {
  description = "The public hostname, e.g. www.kestrel.example; the managed certificate is issued for it."
  type        = string

  validation {
    condition     = can(regex("^([a-z0-9-]+\\.)+[a-z]{2,}$", var.domain))
    error_message = "domain must be a lowercase hostname without scheme or path."
  }
}

variable "image" {
  description = "The container image to run (built from the Dockerfile), e.g. REGION-docker.pkg.dev/PROJECT/frontdoor/frontdoor:1.0.0."
  type        = string

  validation {
    condition     = length(var.image) > 0 && !endswith(var.image, ":latest")
    error_message = "image must be pinned to a tag or digest, not :latest."
  }
}

variable "beacon_consent" {
  description = "The page-view beacon: none counts visits at once (never under GPC or DNT); required waits for the visitor's yes (sites under the EU ePrivacy rules; content/docs/signals-api.md)."
  type        = string
  default     = "none"

  validation {
    condition     = contains(["none", "required"], var.beacon_consent)
    error_message = "beacon_consent must be none or required."
  }
}

variable "author_model" {
  description = "The authoring model: template (built in), gemini (Vertex AI), anthropic or openai (any OpenAI-compatible server)."
  type        = string
  default     = "gemini"

  validation {
    condition     = contains(["template", "gemini", "anthropic", "openai"], var.author_model)
    error_message = "author_model must be template, gemini, anthropic or openai."
  }
}

variable "author_model_name" {
  description = "The model name passed to the authoring provider (empty: the adapter's default)."
  type        = string
  default     = ""
}

variable "author_base_url" {
  description = "Base URL of an OpenAI-compatible or Anthropic endpoint (empty: the provider's own)."
  type        = string
  default     = ""
}

variable "image_model" {
  description = "Hero images: procedural (Pillow, built in) or imagen (Vertex AI)."
  type        = string
  default     = "procedural"

  validation {
    condition     = contains(["procedural", "imagen"], var.image_model)
    error_message = "image_model must be procedural or imagen."
  }
}

variable "oauth_issuer" {
  description = "Issuer URL of the company's identity provider for /mcp; empty runs the built-in authorization server."
  type        = string
  default     = ""

  validation {
    condition     = var.oauth_issuer == "" || startswith(var.oauth_issuer, "https://")
    error_message = "oauth_issuer must be an https URL or empty."
  }
}

variable "staff_email_domains" {
  description = "Email domains whose people are staff and may grant an agent the staff toolsets on /mcp (content/docs/mcp.md)."
  type        = list(string)
  default     = []
}

variable "staff_emails" {
  description = "Addresses of staff outside the staff domains."
  type        = list(string)
  default     = []
}

variable "oauth_staff_claim" {
  description = "With oauth_issuer: the claim (name=value, e.g. groups=growth-staff) that marks a staff token."
  type        = string
  default     = ""
}

variable "api_min_instances" {
  description = "Minimum API instances (1 avoids cold starts on the public pages)."
  type        = number
  default     = 1

  validation {
    condition     = var.api_min_instances >= 0 && var.api_min_instances <= 10
    error_message = "api_min_instances must be between 0 and 10."
  }
}

variable "api_max_instances" {
  description = "Maximum API instances."
  type        = number
  default     = 20

  validation {
    condition     = var.api_max_instances >= 1 && var.api_max_instances <= 100
    error_message = "api_max_instances must be between 1 and 100."
  }
}

variable "worker_max_instances" {
  description = "Maximum instances of each worker service."
  type        = number
  default     = 10

  validation {
    condition     = var.worker_max_instances >= 1 && var.worker_max_instances <= 100
    error_message = "worker_max_instances must be between 1 and 100."
  }
}

variable "max_delivery_attempts" {
  description = "Pub/Sub push attempts before a message moves to its dead letter topic (Pub/Sub allows 5-100)."
  type        = number
  default     = 5

  validation {
    condition     = var.max_delivery_attempts >= 5 && var.max_delivery_attempts <= 100
    error_message = "max_delivery_attempts must be between 5 and 100."
  }
}

variable "alert_email" {
  description = "Where alerts go: the on-call address of the operators."
  type        = string

  validation {
    condition     = can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", var.alert_email))
    error_message = "alert_email must be an email address."
  }
}

variable "error_rate_threshold" {
  description = "Alert when the API's 5xx responses exceed this many per second over 5 minutes."
  type        = number
  default     = 0.1
}

variable "edge_rate_limit_per_minute" {
  description = "Cloud Armor: requests a minute one client IP may make across every instance (429 beyond)."
  type        = number
  default     = 600

  validation {
    condition     = var.edge_rate_limit_per_minute >= 10 && var.edge_rate_limit_per_minute <= 100000
    error_message = "edge_rate_limit_per_minute must be between 10 and 100000."
  }
}

variable "experiment_min_share" {
  description = "The share each arm of an adaptive experiment keeps while it runs (0 to 0.2)."
  type        = number
  default     = 0.1
}

variable "experiment_recompute_seconds" {
  description = "Seconds between recomputations of an adaptive experiment's shares."
  type        = number
  default     = 3600
}

variable "experiment_auto_stop" {
  description = "Whether the stop rule ends an experiment on its own (off by default)."
  type        = bool
  default     = false
}

variable "experiment_stop_probability" {
  description = "The probability of being best at which the stop rule picks a winner."
  type        = number
  default     = 0.999
}

variable "experiment_stop_min_conversions" {
  description = "Conversions every arm needs before the stop rule may end an experiment."
  type        = number
  default     = 100
}

variable "staff_pages_partner" {
  description = "The partner that owns pages staff draft through /mcp (mcp.md, staff toolsets)."
  type        = string
  default     = "ops"
  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", var.staff_pages_partner))
    error_message = "staff_pages_partner must be a partner name: letters, digits, '.', '_' or '-', at most 64."
  }
}
