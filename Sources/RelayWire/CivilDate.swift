/// Calendar dates from day counts and back, for the date texts written and read by hand where Foundation's formatters
/// cost too much: the relay's replies (`RelayTime`) and the agent's stored dates.
public enum CivilDate {
    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`), for days ≥ 0.
    public static func of(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to the proleptic Gregorian date (Hinnant's `days_from_civil`), for years ≥ 1970; a day past
    /// its month's end counts on into the next month.
    public static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let yearFromMarch = month <= 2 ? year - 1 : year
        let era = yearFromMarch / 400
        let yearOfEra = yearFromMarch - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
